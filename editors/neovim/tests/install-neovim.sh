#!/bin/sh
# install-neovim.sh SUITE PREFIX
#
# Installs the Neovim of Debian SUITE (trixie: 0.10.x, sid: 0.12.x) into PREFIX without root
# changes to the system: the .deb files of neovim, its runtime and the shared libraries it loads
# are fetched through apt with a private configuration (the system's own Debian mirror, a
# separate state directory), unpacked under PREFIX/root, and started through that root's own
# dynamic loader so a newer glibc than the host's is fine. PREFIX/bin/nvim is the entry point.
#
# Running it again with the same PREFIX does nothing but print the version.
set -eu

usage="usage: install-neovim.sh trixie|sid PREFIX"
suite=${1:?$usage}
prefix=${2:?$usage}

mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)
nvim=$prefix/bin/nvim

stamp=$prefix/.installed-v2
if [ -f "$stamp" ] && [ -x "$nvim" ] && "$nvim" --version >/dev/null 2>&1; then
  "$nvim" --version | sed -n 1p
  exit 0
fi

arch=$(dpkg --print-architecture 2>/dev/null || echo unknown)
if [ "$arch" != amd64 ]; then
  echo "install-neovim.sh: only amd64 hosts are supported (this one is $arch)" >&2
  exit 1
fi

# The Debian mirror the host already uses (deb822 sources first, then the one-line format).
find_mirror() {
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -r "$f" ] || continue
    awk '$1 == "URIs:" { for (i = 2; i <= NF; i++) if ($i ~ /\/debian\/?$/) { print $i; exit } }' "$f"
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -r "$f" ] || continue
    awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^https?:.*\/debian\/?$/) { print $i; exit } }' "$f"
  done
}
mirror=$(find_mirror | sed -n 1p)
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian

# Start from nothing: a half-finished earlier attempt may have left other package versions.
rm -rf "$prefix/debs" "$prefix/root" "$prefix/bin"
work=$prefix/apt
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$prefix/debs" "$prefix/root"
: >"$work/status"
printf 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s %s main\n' \
  "$mirror" "$suite" >"$work/sources.list"
cat >"$work/apt.conf" <<CONF
Dir::Etc::SourceList "$work/sources.list";
Dir::Etc::SourceParts "/nonexistent";
Dir::State::Lists "$work/lists";
Dir::State::Status "$work/status";
Dir::Cache "$work/cache";
Debug::NoLocking "true";
APT::Architecture "amd64";
APT::Sandbox::User "root";
CONF
APT_CONFIG=$work/apt.conf
export APT_CONFIG

echo "install-neovim.sh: fetching the $suite package index from $mirror" >&2
apt-get -qq update

# Every package neovim depends on, transitively; keep only what the binary loads at run time
# (the C library, the Lua runtime and the libraries nvim links), not the whole dependency tree.
all=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
        --no-replaces --no-enhances neovim |
      awk '/^[a-z0-9]/ { print $1 } $1 == "Depends:" { gsub(/[<>]/, "", $2); print $2 }' | sort -u)
pkgs="neovim neovim-runtime"
for p in $all; do
  case $p in
    libc6 | libgcc-s1 | libluajit* | liblua5.1* | libmsgpack* | libtree-sitter* | libunibilium* | \
    libuv1* | libvterm* | lua-lpeg | lua-luv | libutf8proc*) pkgs="$pkgs $p" ;;
  esac
done

echo "install-neovim.sh: downloading$(printf ' %s' $pkgs)" >&2
(cd "$prefix/debs" && apt-get -qq download $pkgs)
for deb in "$prefix"/debs/*.deb; do
  dpkg-deb -x "$deb" "$prefix/root"
done

loader=
for l in "$prefix/root/usr/lib64/ld-linux-x86-64.so.2" "$prefix/root/lib64/ld-linux-x86-64.so.2" \
         "$prefix/root/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"; do
  if [ -e "$l" ]; then loader=$l; break; fi
done
[ -n "$loader" ] || { echo "install-neovim.sh: no dynamic loader in the unpacked libc6" >&2; exit 1; }

root=$prefix/root
# nvim finds its bundled tree-sitter parsers in <its own directory>/../lib/nvim, and its own
# path (v:progpath, symlinks resolved) is the loader's here: make that lead to usr/lib/nvim.
libdir=$(dirname "$(dirname "$(readlink -f "$loader")")")/lib/nvim
if [ ! -e "$libdir" ]; then
  mkdir -p "$(dirname "$libdir")"
  ln -s "$root/usr/lib/nvim" "$libdir"
fi
mkdir -p "$prefix/bin"
cat >"$nvim" <<WRAP
#!/bin/sh
export VIMRUNTIME=$root/usr/share/nvim/runtime
export LUA_CPATH="$root/usr/lib/x86_64-linux-gnu/lua/5.1/?.so;;"
exec $loader --library-path $root/usr/lib/x86_64-linux-gnu:$root/lib/x86_64-linux-gnu $root/usr/bin/nvim "\$@"
WRAP
chmod +x "$nvim"
"$nvim" --version | sed -n 1p
touch "$stamp"
