#!/usr/bin/env bash
# bench/index/corpora.sh: installs one source tree of at least 5 MB per
# language under DIR/LANGUAGE (default /tmp/agentls-corpora), from packages
# these machines reach: Debian's (apt-get download, unpacked with dpkg-deb,
# nothing installed on the system) and npm's (npm pack). Go's tree is the
# toolchain's own. C# comes from Debian's source packages (no binary package
# ships C# sources): Newtonsoft.Json 6.0.8 and KeePass 2.47, 12 MB of .cs,
# fetched with apt-get source through a private deb-src list (the system's
# apt configuration is left as it is); CSHARP_DIR, a checkout of a C#
# project, replaces them.
#
#   bash bench/index/corpora.sh [DIR]
#   go run ./bench/index -corpus DIR            # the per-language table
#   AGENTLS_CORPUS=DIR go test -run TestSkeletonCorpora ./codeindex/
set -euo pipefail
DIR=${1:-/tmp/agentls-corpora}
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

debs=(openjdk-17-source rust-src libruby3.1 linux-source-6.1 libboost1.74-dev
	lua-penlight lua-busted lua-ldoc neovim-runtime awesome prosody luakit
	php-symfony-dependency-injection php-symfony-http-kernel php-symfony-console php-symfony-form
	php-symfony-validator php-symfony-security-http php-symfony-framework-bundle php-symfony-http-foundation
	php-symfony-routing php-symfony-serializer php-symfony-cache php-symfony-config php-symfony-translation
	php-symfony-intl php-symfony-mime php-symfony-messenger libpython3.11-stdlib libpython3.11-minimal)
mkdir debs x
(cd debs && apt-get download "${debs[@]}")
for d in debs/*.deb; do dpkg-deb -x "$d" x; done
(cd x && npm pack --silent webpack@5 rxjs@7 @types/node typescript@5.4 >/dev/null)
# TSX: React component libraries that ship their .tsx sources (8.5 MB).
(cd x && npm pack --silent @patternfly/react-core@6.6.1 @patternfly/react-table@6.6.1 \
	@patternfly/react-charts@8.6.1 @blueprintjs/core@6.20.0 @blueprintjs/table@6.2.6 >/dev/null)
for t in x/*.tgz; do mkdir -p "${t%.tgz}" && tar -xzf "$t" -C "${t%.tgz}"; done

fresh() { rm -rf "${DIR:?}/$1" && mkdir -p "$DIR/$1"; }

fresh java
(cd "$DIR/java" && unzip -q "$work"/x/usr/lib/jvm/openjdk-17/lib/src.zip 'java.base/java/*' && mv java.base/java . && rmdir java.base)
fresh rust
cp -r x/usr/src/rustc-*/library/{core,alloc,std} "$DIR/rust/"
fresh ruby
cp -r x/usr/lib/ruby/3.1.0 "$DIR/ruby/"
fresh php
cp -r x/usr/share/php/Symfony "$DIR/php/"
fresh cpp
for d in geometry spirit asio; do cp -r "x/usr/include/boost/$d" "$DIR/cpp/"; done
fresh c
tar -xJf x/usr/src/linux-source-6.1.tar.xz -C "$work" linux-source-6.1/kernel linux-source-6.1/mm linux-source-6.1/lib linux-source-6.1/fs/ext4
cp -r "$work"/linux-source-6.1/* "$DIR/c/"
fresh lua
(cd x && find . -name '*.lua' -exec cp --parents {} "$DIR/lua/" \;)
fresh python
cp -r x/usr/lib/python3.11/. "$DIR/python/"
rm -rf "$DIR"/python/config-3.11-* # static libraries, not the library
find "$DIR/python" -name __pycache__ -prune -exec rm -rf {} +
fresh javascript
cp -r x/webpack-*/package/lib "$DIR/javascript/webpack-lib"
fresh typescript
cp -r x/rxjs-*/package/src "$DIR/typescript/rxjs-src"
cp -r x/types-node-*/node "$DIR/typescript/types-node"
cp x/typescript-*/package/lib/*.d.ts "$DIR/typescript/"
fresh tsx
for d in x/patternfly-*/ x/blueprintjs-*/; do
	(cd "$d" && find . -name '*.tsx' -exec cp --parents {} "$DIR/tsx/" \;)
done
# go: bench/index takes $(go env GOROOT)/src when DIR/go is absent
fresh csharp
if [ -n "${CSHARP_DIR:-}" ]; then
	cp -r "$CSHARP_DIR"/. "$DIR/csharp/"
else
	mkdir -p apt/lists/partial src cs
	echo "deb-src http://deb.debian.org/debian bookworm main" >apt/sources.list
	aptsrc=(-o Dir::Etc::SourceList="$work/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists="$work/apt/lists")
	apt-get -qq "${aptsrc[@]}" update
	# Only the upstream tarballs are needed: a mirror without the Debian
	# part of a package (404) does not stop the script.
	(cd src && apt-get -qq "${aptsrc[@]}" source --download-only newtonsoft-json keepass2 2>/dev/null) || true
	ls src/newtonsoft-json_*.orig.tar.* src/keepass2_*.orig.tar.* >/dev/null
	for t in src/*.orig.tar.*; do tar -xf "$t" -C cs; done
	(cd cs && find . -name '*.cs' -exec cp --parents {} "$DIR/csharp/" \;)
fi
du -sh "$DIR"/*/
