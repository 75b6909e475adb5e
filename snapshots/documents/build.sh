#!/bin/sh
# Rebuilds every .pen document in this folder from scratch, from its batch_design script.
#
#   NIB=target/debug/nib snapshots/documents/build.sh          (from the repository root)
#   snapshots/documents/build.sh shapes text                   (only some documents)
#
# Each NAME.pen starts as an empty document ({"version": "2.11", "children": []}, 2.13 for
# strokes_213, 2.20 for current_220), gets NAME.variables.json through `nib call set_variables` when that file exists,
# then NAME.script through `nib apply`. The result replaces NAME.pen only when everything
# succeeded. Node ids are fresh random ids on every build (batch_design ignores written ids), so
# a rebuild changes the ids but nothing else.
set -eu

NIB=${NIB:-target/debug/nib}
case $NIB in
  */*) NIB=$(cd "$(dirname "$NIB")" && pwd)/$(basename "$NIB") ;;
  *) NIB=$(command -v "$NIB" || echo "$NIB") ;;
esac
[ -x "$NIB" ] || { echo "build.sh: no nib binary at $NIB (set NIB=path/to/nib)" >&2; exit 1; }

cd "$(dirname "$0")"

ALL="shapes fills strokes strokes_213 effects text icons layout annotations components showcase current_220"
[ $# -gt 0 ] && ALL="$*"

for name in $ALL; do
  [ -f "$name.script" ] || { echo "build.sh: no $name.script" >&2; exit 1; }
  case $name in
    *_213) version=2.13 ;;
    *_220) version=2.20 ;;
    *) version=2.11 ;;
  esac
  tmp=".$name.build.pen"
  rm -f "$tmp"
  printf '{"version": "%s", "children": []}' "$version" > "$tmp"
  if [ -f "$name.variables.json" ]; then
    args=$(printf '{"filePath": "%s", "variables": %s}' "$PWD/$tmp" "$(cat "$name.variables.json")")
    if ! out=$("$NIB" call set_variables --args "$args" 2>&1); then
      echo "$out" >&2; rm -f "$tmp"; echo "build.sh: set_variables failed for $name" >&2; exit 1
    fi
  fi
  if ! out=$("$NIB" apply --seed 1 --max-operations 1000 "$tmp" "$name.script" 2>&1); then
    echo "$out" >&2; rm -f "$tmp"; echo "build.sh: $name.script failed" >&2; exit 1
  fi
  mv "$tmp" "$name.pen"
  issues=$(printf '%s\n' "$out" | sed -n '/^## Potential issues detected:/,/^Review these/p' | grep '^- ' || true)
  echo "built $name.pen"
  [ -z "$issues" ] || printf '%s\n' "$issues" | sed 's/^/    (intended) /'
done
