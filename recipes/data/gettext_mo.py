"""What the data scripts of recipes/data share: fetching Debian packages, reading gettext's
compiled catalogues (`.mo`), collecting the sentences of the dev and test sets, which no
training or dev text may repeat, and writing an output file as bitext does. Standard library only."""
import contextlib
import os
import re
import struct
import subprocess
import sys
import tempfile
from pathlib import Path


def read_mo(data, name):
    """(msgid, msgstr) of a compiled gettext catalogue: the singular forms, contexts dropped,
    decoded in the charset its header names (UTF-8 when it names none)."""
    if len(data) < 20:
        sys.exit(f"{name}: too short for a .mo catalogue ({len(data)} bytes)")
    magic = struct.unpack("<I", data[:4])[0]
    if magic not in (0x950412DE, 0xDE120495):
        sys.exit(f"{name}: not a .mo catalogue (magic {magic:#x})")
    e = "<" if magic == 0x950412DE else ">"
    _, n, orig, trans = struct.unpack(e + "4I", data[4:20])
    if max(orig, trans) + 8 * n > len(data):
        sys.exit(f"{name}: its tables of {n} messages point past the end of the file")
    raw = []
    for i in range(n):
        ol, oo = struct.unpack(e + "2I", data[orig + 8 * i:orig + 8 * i + 8])
        tl, to = struct.unpack(e + "2I", data[trans + 8 * i:trans + 8 * i + 8])
        if oo + ol > len(data) or to + tl > len(data):
            sys.exit(f"{name}: message {i} points past the end of the file")
        raw.append((data[oo:oo + ol], data[to:to + tl]))
    charset = "utf-8"
    for mid, mstr in raw:
        if mid == b"":
            hit = re.search(rb"charset=([A-Za-z0-9_.:-]+)", mstr)
            if hit and hit[1].decode("ascii").upper() != "CHARSET":
                charset = hit[1].decode("ascii")
    out = []
    for i, (mid, mstr) in enumerate(raw):
        if not mid or not mstr:
            continue
        try:
            mid, mstr = mid.decode(charset), mstr.decode(charset)
        except (LookupError, UnicodeDecodeError) as err:
            sys.exit(f"{name}: message {i} cannot be read as {charset} ({err})")
        mid, mstr = mid.split("\x04")[-1].split("\x00")[0], mstr.split("\x00")[0]
        if mid and mstr:
            out.append((mid, mstr))
    return out


def last_fields(files):
    """The last tab-separated field of every line of `files`, stripped, without empties."""
    seen = set()
    for f in files:
        for line in f.read_text(encoding="utf8", errors="replace").splitlines():
            s = line.split("\t")[-1].strip()
            if s:
                seen.add(s)
    return seen


def held_out(data_dir=None, patterns=("**/*",)):
    """Every sentence of the dev and test sets: the last tab field of each line of the files
    under DATA/dev that `patterns` match (DATA: `data_dir`, else $BITEXT_DATA, else
    ../shared/data)."""
    data_dir = data_dir or os.environ.get("BITEXT_DATA", "../shared/data")
    dev = Path(data_dir) / "dev"
    files = sorted({p for pat in patterns for p in dev.glob(pat) if p.is_file()})
    if not files:
        sys.exit(f"{dev}: no dev or test sets found (set BITEXT_DATA)")
    return last_fields(files)


def write_mo(messages, big_endian=False):
    """A compiled catalogue of (msgid, msgstr) byte strings, as msgfmt lays it out (for the
    scripts' tests)."""
    e = ">" if big_endian else "<"
    n = len(messages)
    orig, trans = 28, 28 + 8 * n
    data = 28 + 16 * n
    table_o, table_t, blob = [], [], b""
    for mid, _ in messages:
        table_o.append((len(mid), data + len(blob)))
        blob += mid + b"\0"
    for _, mstr in messages:
        table_t.append((len(mstr), data + len(blob)))
        blob += mstr + b"\0"
    head = struct.pack(e + "7I", 0x950412DE, 0, n, orig, trans, 0, 0)
    return head + b"".join(struct.pack(e + "2I", *t) for t in table_o + table_t) + blob


def debs_option(parser):
    """The scripts' --debs DIR option (see `downloaded`)."""
    parser.add_argument("--debs", metavar="DIR", type=Path,
                        help="download the packages into this folder and reuse those already "
                        "there (default: a temporary folder)")


@contextlib.contextmanager
def downloaded(packages, debs=None):
    """{package: .deb path} of `packages`, fetched by `download` into the folder `debs`
    (created, kept, and the packages already there reused) or, without it, into a temporary
    folder removed on leaving the `with` block."""
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(debs or tmp)
        where.mkdir(parents=True, exist_ok=True)
        yield download(packages, where)


def download(packages, where):
    """{package: .deb path} of the packages, fetched into `where` by `apt-get download` (those
    already there are kept)."""
    def have(p):
        return sorted(Path(where).glob(f"{p}_*.deb"))
    missing = [p for p in packages if not have(p)]
    if missing:
        try:
            subprocess.run(["apt-get", "download", *missing], cwd=where, check=True)
        except FileNotFoundError:
            sys.exit("apt-get not found: the packages come from Debian's registry")
        except subprocess.CalledProcessError as err:
            sys.exit(f"apt-get download {' '.join(missing)} failed ({err.returncode})")
    debs = {}
    for p in packages:
        if not have(p):
            sys.exit(f"{where}: apt-get download left no {p}_*.deb")
        debs[p] = have(p)[-1]
    return debs


def write(path, text):
    """Writes `text` to `path` through a temporary file renamed into place; a link is followed
    (the link stays), a device or FIFO is written in place."""
    target = Path(path).resolve()
    if target.exists() and not target.is_file():
        with open(target, "w", encoding="utf8") as f:
            f.write(text)
        return
    umask = os.umask(0)
    os.umask(umask)
    # The mode of the file it replaces, or a new file's (mkstemp's 0600 would hide it).
    mode = target.stat().st_mode & 0o7777 if target.exists() else 0o666 & ~umask
    fd, part = tempfile.mkstemp(prefix=target.name + ".", suffix=".part", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf8") as f:
            f.write(text)
        os.chmod(part, mode)
        Path(part).replace(target)
    except BaseException:
        os.unlink(part)
        raise
