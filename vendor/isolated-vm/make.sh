#!/usr/bin/env bash
# Makes isolated-vm-<version>-<suffix>.tgz, the isolated-vm that package.json installs: isolated-vm 5.0.4
# from the npm registry (its integrity checked) with this folder's patches applied. The package has
# no install script of its own: idx's install script compiles it (build.mjs), since upstream's
# prebuilt binaries are its unpatched code. Its `files` leave out what the compile makes, as idx's
# package bundles it and would otherwise ship this machine's binary. Run this after changing a patch; README.md says why
# each one exists.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
version=5.0.4
# Raise it with every change to a patch: npm keeps an installed package whose version it already
# has, so a changed tarball under the same version would not reach an existing node_modules.
suffix=idx.1
integrity=sha512-RYUf/JC4ldWz/oi2BVs8a1XIprQ71q6eQPBwySaF5Apu0KMyf2gIpElbCyPh2OEmRT+FYw1GOKSdkv7jw2KLxw==
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

npm pack --silent "isolated-vm@$version" >/dev/null
actual=$(node -e 'const c = require("node:crypto"); const f = require("node:fs");
  process.stdout.write("sha512-" + c.createHash("sha512").update(f.readFileSync(process.argv[1])).digest("base64"))' \
  "isolated-vm-$version.tgz")
if [ "$actual" != "$integrity" ]; then
  echo "isolated-vm-$version.tgz from the registry has integrity $actual, expected $integrity" >&2
  exit 1
fi

tar xzf "isolated-vm-$version.tgz"
cd package
for patch in "$here"/*.patch; do git apply -p1 "$patch"; done
node -e 'const f = require("node:fs"); const p = JSON.parse(f.readFileSync("package.json", "utf8"));
  p.version += "-" + process.argv[1];
  delete p.scripts.install; p.gypfile = false;
  p.files = ["binding.gyp", "include.js", "isolated-vm.js", "isolated-vm.d.ts", "src", "vendor"];
  delete p.dependencies; delete p.devDependencies; delete p.binary;
  f.writeFileSync("package.json", JSON.stringify(p, null, 2) + "\n")' "$suffix"
rm -f "$here"/isolated-vm-*.tgz
npm pack --silent --pack-destination "$here" >/dev/null
ls "$here"/isolated-vm-*.tgz
