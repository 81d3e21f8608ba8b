#!/usr/bin/env bash
# realtransl.sh BUILD: what the index lists for real translations, from
# Debian's own packages (public-domain texts, not kept in the project):
#  - 16 books of the Bible in the King James Version, the World English
#    Bible (both English) and the Spanish Reina-Valera 1909 (SWORD modules
#    sword-text-kjv, -web, -sparv, read out with diatheke);
#  - the Debian Reference manual in 8 languages (debian-reference-XX, its
#    plain-text edition: commands, paths and URLs kept verbatim, some
#    paragraphs left untranslated).
# The truth: one Bible book in two translations, and two editions of the
# manual, are other translations; two different Bible books are unrelated.
# Every book is indexed with `simbook index`, every book's `simbook similar`
# list is read, and each pair counts with the relation the first book's
# list gives the second (not listed: unrelated).  Prints a table per kind
# of pair.  Needs apt-get (with Debian's package lists), dpkg-deb, diatheke
# and python3; downloads about 20 MB into a temporary folder it removes.
set -eu
BUILD=${1:-build}
SIMBOOK=$(cd "$BUILD" && pwd)/simbook
for tool in apt-get dpkg-deb diatheke python3; do
	command -v "$tool" >/dev/null || { echo "realtransl.sh: $tool is needed (apt-get install $tool)" >&2; exit 2; }
done
[ -x "$SIMBOOK" ] || { echo "realtransl.sh: no $SIMBOOK (make first)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/deb" "$tmp/root" "$tmp/lib/bible" "$tmp/lib/manuals"
LANGS="en de fr es it ja pt zh-cn"
PKGS="sword-text-kjv sword-text-web sword-text-sparv"
for l in $LANGS; do PKGS="$PKGS debian-reference-$l"; done
# shellcheck disable=SC2086
(cd "$tmp/deb" && apt-get download -q $PKGS >/dev/null 2>&1) ||
	{ echo "realtransl.sh: apt-get download failed (apt-get update first?)" >&2; exit 2; }
for d in "$tmp"/deb/*.deb; do dpkg-deb -x "$d" "$tmp/root"; done

BOOKS="Genesis Exodus Leviticus Ruth Esther Job Psalms Proverbs Isaiah Matthew Mark Luke John Acts Romans Revelation"
for b in $BOOKS; do
	for m in engKJV2006eb:kjv engWEB2015eb:web spaRV1909eb:rv1909; do
		# verses as "1:1 text", as printed Bibles and Project Gutenberg have them
		SWORD_PATH=$tmp/root/usr/share/sword HOME=$tmp diatheke -b "${m%%:*}" -f plain -k "$b" |
			grep -v "^(${m%%:*})" | sed -E "s/^$b ([0-9]+:[0-9]+): /\\1 /" \
			>"$tmp/lib/bible/${m##*:}-$b.txt"
	done
done
for l in $LANGS; do
	zcat "$tmp/root/usr/share/debian-reference/debian-reference.$l.txt.gz" >"$tmp/lib/manuals/debref-$l.txt"
done

"$SIMBOOK" index "$tmp/lib" --index "$tmp/idx" >/dev/null
(cd "$tmp/lib" && for f in bible/*.txt manuals/*.txt; do
	"$SIMBOOK" similar "$f" --index "$tmp/idx" --tsv | awk -v f="$f" -F'\t' 'NR > 1 { print f "\t" $9 "\t" $3 }'
	echo "$f"
done) >"$tmp/lists.tsv" || true

python3 - "$tmp/lists.tsv" <<'PY'
import collections, itertools, sys
listed, books = {}, []
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split("\t")
    if len(f) == 1:
        books.append(f[0])
    else:
        listed[(f[0], f[1])] = f[2]
def kind(a, b):
    (da, na), (db, nb) = a.split("/"), b.split("/")
    if da != db:
        return None
    if da == "manuals":
        return "manual, two languages", "other-translation"
    (ta, ba), (tb, bb) = na[:-4].split("-", 1), nb[:-4].split("-", 1)
    if ba == bb:
        return ("Bible book, KJV / WEB (English)" if {ta, tb} == {"kjv", "web"} else
                "Bible book, English / Spanish"), "other-translation"
    return ("two Bible books, one translation" if ta == tb else
            "two Bible books, two translations"), "unrelated"
rows = collections.OrderedDict()
for a, b in itertools.permutations(sorted(books), 2):
    k = kind(a, b)
    if k:
        rows.setdefault(k, collections.Counter())[listed.get((a, b), "unrelated")] += 1
classes = ["other-translation", "near-duplicate", "a-contains-b", "b-contains-a", "overlap", "unrelated"]
print("| pairs (both orders) | truth | n | right | " + " | ".join(classes) + " |")
print("|---|---|--:|--:|" + "--:|" * len(classes))
for (name, truth), c in rows.items():
    n = sum(c.values())
    print("| %s | %s | %d | %.1f%% | %s |" % (name, truth, n, 100.0 * c[truth] / n,
                                             " | ".join(str(c[x]) for x in classes)))
PY
