#!/bin/bash
# lab/docs-check.sh TREE: builds the DAMON pages of the kernel tree TREE
# (ours laid over the base tree) with Sphinx and the kernel's own conf.py
# and extensions, and lists every warning.  The whole Documentation takes
# half an hour to build; the DAMON pages, with the documents they link to
# outside stubbed (each checked to exist in TREE), take seconds.
# Exit status: 0 without warnings, 1 with, 2 if it could not run.
set -euo pipefail

tree=${1:?usage: lab/docs-check.sh TREE}
tree=$(readlink -f "$tree")
PAGES=(mm/damon admin-guide/mm/damon translations/zh_CN/mm/damon
	translations/zh_CN/admin-guide/mm/damon
	translations/zh_TW/admin-guide/mm/damon)

command -v sphinx-build > /dev/null || { echo "docs-check: no sphinx-build (apt-get install python3-sphinx)" >&2; exit 2; }
[[ -f $tree/Documentation/conf.py ]] || { echo "docs-check: $tree has no Documentation/conf.py" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
doc=$work/Documentation
mkdir -p "$doc"
cp -a "$tree/Documentation/conf.py" "$tree/Documentation/sphinx" "$doc/"
# What conf.py points at: the theme's static files and the logo.
[[ -d $tree/Documentation/sphinx-static ]] && cp -a "$tree/Documentation/sphinx-static" "$doc/"
if [[ -f $tree/Documentation/images/logo.svg ]]; then
	mkdir -p "$doc/images"
	cp "$tree/Documentation/images/logo.svg" "$doc/images/"
fi
cp -a "$tree/Documentation/translations" "$doc/translations.all"
for p in "${PAGES[@]}"; do
	[[ -d $tree/Documentation/$p ]] || continue
	mkdir -p "$doc/$p"
	cp -a "$tree/Documentation/$p/." "$doc/$p/"
done
for l in zh_CN zh_TW; do
	cp "$doc/translations.all/$l/disclaimer-$l.rst" "$doc/translations/$l/" 2>/dev/null || true
done
rm -rf "$doc/translations.all"

# Documents linked from outside the DAMON pages: they must exist in TREE;
# in the small tree they are stubs.
missing=0
while IFS= read -r target; do
	[[ -f $doc/$target.rst ]] && continue
	if [[ ! -f $tree/Documentation/$target.rst ]]; then
		echo "docs-check: a DAMON page links to /$target, which $tree does not have"
		missing=1
		continue
	fi
	mkdir -p "$doc/$(dirname "$target")"
	printf '%s\n%s\n\nStub of the page of the kernel tree.\n' "$target" \
		"$(printf '%*s' "${#target}" '' | tr ' ' '=')" > "$doc/$target.rst"
	stubs+=("$target")
done < <(grep -rhoE ':doc:`[^`]*/[^`]*`' "${PAGES[@]/#/$doc/}" 2>/dev/null |
	sed -E 's/.*<([^>]*)>`$/\1/; s/^:doc:`//; s/`$//' | grep '^/' | sed 's|^/||' | sort -u)

{
	printf 'DAMON pages\n===========\n\n.. toctree::\n   :maxdepth: 1\n\n'
	for p in "${PAGES[@]}"; do
		[[ -f $doc/$p/index.rst ]] && printf '   %s/index\n' "$p"
	done
	for s in "${stubs[@]:-}"; do [[ -n $s ]] && printf '   %s\n' "$s"; done
} > "$doc/index.rst"

log=$work/warnings.txt
# The kernel's extensions read these from the environment, as make sets them.
if ! srctree=$tree KERNELDOC=$tree/scripts/kernel-doc sphinx-build -b html -q \
	-c "$doc" -d "$work/doctrees" -w "$log" "$doc" "$work/html" > "$work/out.txt" 2>&1; then
	cat "$work/out.txt" "$log" 2>/dev/null
	echo "docs-check: sphinx-build failed"
	exit 2
fi
n=$(grep -c . "$log" || true)
sed "s|$doc/||" "$log"
built=$(find "$work/html" -name '*.html' -path '*damon*' | wc -l)
((built > 0)) || { echo "docs-check: no DAMON page was built"; exit 2; }
echo "docs-check: $built DAMON pages built, $((n + missing)) warning(s)"
((n == 0 && missing == 0))
