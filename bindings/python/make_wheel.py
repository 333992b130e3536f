"""Writes the wheel of the package `tessera` (the //bindings/python:wheel genrule; users run
tools/build_wheel.sh): the package's modules and stubs, the extension linked against
libtessera, and libtessera itself beside it, under the file name the extension's DT_NEEDED
asks for (libtessera.so without a SONAME, libtessera.so.<major> with one). patchelf sets
the extension's RUNPATH to $ORIGIN, so the bundled library is the one it loads. Only the
standard library writes the zip: no network, no setuptools. Reproducible: entries sorted,
fixed timestamps.

    make_wheel.py --version-header version.h --python-version 3.11 [--cuda]
                  --extension _tessera_capi.so --library libtessera.so
                  --out WHEEL --name-out NAME_FILE PACKAGE_FILE...

The version comes from capi/include/tessera/version.h (TESS_VERSION_MAJOR/MINOR/PATCH)
alone; NAME_FILE receives the wheel's proper file name
(tessera_runtime-<version>-cp3XX-cp3XX-linux_x86_64.whl), which the build's fixed output
name cannot carry.
"""

import argparse
import base64
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

# The distribution name on PyPI (`tessera` there is another project); imported as `tessera`.
DIST_NAME = "tessera-runtime"
SUMMARY = "Tessera: global tensors over a cluster of CPUs or GPUs (MPI), from Python"
# 1980-01-01, the earliest time a zip entry can hold.
ZIP_TIME = (1980, 1, 1, 0, 0, 0)


def read_version(header):
    """"MAJOR.MINOR.PATCH" from the TESS_VERSION_* defines of version.h."""
    with open(header) as f:
        text = f.read()
    parts = []
    for part in ("MAJOR", "MINOR", "PATCH"):
        m = re.search(r"^#define TESS_VERSION_%s (\d+)\s*$" % part, text, re.MULTILINE)
        if m is None:
            sys.exit("make_wheel: %s defines no TESS_VERSION_%s" % (header, part))
        parts.append(m.group(1))
    return ".".join(parts)


def patchelf(*args):
    return subprocess.run(["patchelf"] + list(args), check=True, stdout=subprocess.PIPE,
                          text=True).stdout


def stage_native(extension, library, tmp):
    """Copies of the extension (RUNPATH $ORIGIN) and the library (no RUNPATH: it needs
    only system libraries), the latter named as the extension's DT_NEEDED says;
    [(name in the package, path)]."""
    needed = [n for n in patchelf("--print-needed", extension).split()
              if n.startswith("libtessera.so")]
    if len(needed) != 1:
        sys.exit("make_wheel: %s needs %s; expected exactly one libtessera.so[.N] (is the C "
                 "API linked in statically?)" % (extension, needed or "no libtessera"))
    ext = os.path.join(tmp, os.path.basename(extension))
    lib = os.path.join(tmp, needed[0])
    shutil.copyfile(extension, ext)
    shutil.copyfile(library, lib)
    patchelf("--set-rpath", "$ORIGIN", ext)
    patchelf("--remove-rpath", lib)
    return [(os.path.basename(ext), ext), (needed[0], lib)]


def record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (arcname, digest, len(data))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--version-header", required=True)
    parser.add_argument("--python-version", required=True, help="e.g. 3.11")
    parser.add_argument("--cuda", action="store_true",
                        help="the --config=cuda build: local version label +cuda")
    parser.add_argument("--extension", required=True)
    parser.add_argument("--library", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--name-out", required=True)
    parser.add_argument("files", nargs="+", help="the package's .py, .pyi and py.typed")
    args = parser.parse_args()

    version = read_version(args.version_header) + ("+cuda" if args.cuda else "")
    tag = "cp" + args.python_version.replace(".", "")
    dist = DIST_NAME.replace("-", "_")
    dist_info = "%s-%s.dist-info" % (dist, version)
    metadata = "\n".join([
        "Metadata-Version: 2.1",
        "Name: " + DIST_NAME,
        "Version: " + version,
        "Summary: " + SUMMARY,
        "Platform: linux_x86_64",
        "Requires-Python: ==%s.*" % args.python_version,
        "Requires-Dist: numpy",
        "",
        "Imported as `tessera`. Needs Open MPI 4 (libmpi.so.40) and OpenBLAS (libopenblas.so.0)"
        " from the system (Debian: openmpi-bin, libopenblas0)" +
        (", and the CUDA runtime, cuBLAS and NCCL the library was built with." if args.cuda
         else "."),
        "",
    ])
    wheel = "\n".join([
        "Wheel-Version: 1.0",
        "Generator: tessera make_wheel.py",
        "Root-Is-Purelib: false",
        "Tag: %s-%s-linux_x86_64" % (tag, tag),
        "",
    ])

    with tempfile.TemporaryDirectory() as tmp:
        entries = [("tessera/" + os.path.basename(f), f) for f in args.files]
        entries += [("tessera/" + name, path)
                    for name, path in stage_native(args.extension, args.library, tmp)]
        names = [name for name, _ in entries]
        if len(set(names)) != len(names):
            sys.exit("make_wheel: two files named alike: %s" % sorted(names))
        contents = [(name, open(path, "rb").read()) for name, path in sorted(entries)]
    contents += [(dist_info + "/METADATA", metadata.encode()),
                 (dist_info + "/WHEEL", wheel.encode()),
                 (dist_info + "/top_level.txt", b"tessera\n")]
    record = [record_line(name, data) for name, data in contents]
    record.append(dist_info + "/RECORD,,")
    contents.append((dist_info + "/RECORD", ("\n".join(record) + "\n").encode()))

    with zipfile.ZipFile(args.out, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in contents:
            info = zipfile.ZipInfo(name, ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            executable = name.endswith(".so") or ".so." in name
            info.external_attr = (0o100755 if executable else 0o100644) << 16
            z.writestr(info, data)
    with open(args.name_out, "w") as f:
        f.write("%s-%s-%s-%s-linux_x86_64.whl\n" % (dist, version, tag, tag))


if __name__ == "__main__":
    main()
