#!/usr/bin/env bash
# simbook fingerprint / compare: output shape, batch behaviour on errors,
# JSON keys, and the relation of a book with its copy, its HTML version and
# an unrelated book.
set -u
BUILD=${SIMBOOK_BUILD:-build}
SB="$BUILD/simbook"
[ -x "$SB" ] || { echo "skip: $SB not built"; exit 77; }
command -v jq >/dev/null || { echo "skip: jq not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # description, command...
	local d=$1; shift
	if "$@"; then echo "ok - $d"; else echo "not ok - $d"; fail=1; fi
}

# Two different texts of a few thousand words, deterministic.
gen() { # seed words
	awk -v seed="$1" -v n="$2" 'BEGIN {
		srand(seed);
		split("the of and to a in that he was it his is with as for had you be her on not at but she by which have him from they all this were my so there one me said we no", w, " ");
		for (i = 0; i < n; i++) {
			if (rand() < 0.3) {
				word = "";
				k = 2 + int(rand() * 4);
				for (j = 0; j < k; j++) word = word substr("bcdfghklmnprstvw", 1 + int(rand() * 16), 1) substr("aeiou", 1 + int(rand() * 5), 1);
			} else word = w[1 + int(rand() * 45)];
			printf "%s%s", word, (i % 12 == 11) ? ".\n" : " ";
			if (i % 120 == 119) printf "\n";
		}
	}'
}
gen 1 6000 >"$tmp/a.txt"
gen 2 6000 >"$tmp/b.txt"
cp "$tmp/a.txt" "$tmp/a copy.txt"
{ printf '<html><head><title>A</title></head><body>\n<p>'; sed 's/&/\&amp;/g; s/</\&lt;/g; s/^$/<\/p><p>/' "$tmp/a.txt"; printf '</p></body></html>\n'; } >"$tmp/a.html"

out=$("$SB" fingerprint "$tmp/a.txt" "$tmp/missing.txt" "$tmp/b.txt" 2>"$tmp/err")
rc=$?
check "fingerprint exits non-zero when a file fails" [ "$rc" -ne 0 ]
check "fingerprint prints the other files" [ "$(printf '%s\n' "$out" | wc -l)" -eq 2 ]
check "fingerprint names the failing file on stderr" grep -q "missing.txt" "$tmp/err"
check "line starts with a 32-hex-digit id" bash -c "printf '%s\n' \"$out\" | head -1 | grep -Eq '^[0-9a-f]{32} '"

ids=$(printf '%s\n' "$tmp/a.txt" "$tmp/a copy.txt" | "$SB" fingerprint --json --stdin)
check "fingerprint --stdin --json gives JSON Lines" [ "$(printf '%s\n' "$ids" | jq -s length)" -eq 2 ]
check "a copy has the same id" [ "$(printf '%s\n' "$ids" | jq -r .id | sort -u | wc -l)" -eq 1 ]
check "JSON has words and text_hash" bash -c "printf '%s\n' '$(printf '%s\n' "$ids" | head -1)' | jq -e '.words > 1000 and (.text_hash | length) == 32' >/dev/null"

j=$("$SB" compare --json "$tmp/a.txt" "$tmp/a copy.txt")
check "compare --json has the required keys" bash -c "printf '%s' '$j' | jq -e 'has(\"simhash_distance\") and has(\"jaccard\") and has(\"dupniq_cs\") and has(\"dupniq_its\") and has(\"relation\")' >/dev/null"
check "a copy is an identical file" [ "$(printf '%s' "$j" | jq -r .relation)" = identical-file ]
r=$("$SB" compare --json "$tmp/a.txt" "$tmp/a.html" | jq -r .relation)
check "the HTML version is the same text or a near duplicate ($r)" bash -c "[ '$r' = same-text ] || [ '$r' = near-duplicate ]"
r=$("$SB" compare --json "$tmp/a.txt" "$tmp/b.txt" | jq -r .relation)
check "different books are unrelated ($r)" [ "$r" = unrelated ]
check "compare prints a human-readable report" bash -c "'$SB' compare '$tmp/a.txt' '$tmp/b.txt' | grep -q '^relation: '"
"$SB" compare "$tmp/a.txt" >/dev/null 2>&1
check "compare with one file is a usage error" [ $? -eq 2 ]

# Real books, when the corpus is there (RELATIONS.tsv relations).
B=${SIMBOOK_BOOKS:-}
if [ -n "$B" ] && [ -f "$B/texts/pg76-adventures-of-huckleberry-finn.txt" ] && [ -f "$B/epub/pg36-war-of-the-worlds.epub" ]; then
	r=$("$SB" compare --json "$B/texts/pg7100-huckleberry-finn-part1-ch01-05.txt" "$B/texts/pg76-adventures-of-huckleberry-finn.txt" | jq -r .relation)
	check "a volume is inside the complete work ($r)" [ "$r" = b-contains-a ]
	r=$("$SB" compare --json "$B/texts/pg76-adventures-of-huckleberry-finn.txt" "$B/texts/pg7100-huckleberry-finn-part1-ch01-05.txt" | jq -r .relation)
	check "the complete work contains its volume ($r)" [ "$r" = a-contains-b ]
	r=$("$SB" compare --json "$B/epub/pg36-war-of-the-worlds.epub" "$B/texts/pg36-the-war-of-the-worlds.txt" | jq -r .relation)
	check "EPUB and text of one edition are near duplicates ($r)" [ "$r" = near-duplicate ]
	r=$("$SB" compare --json "$B/texts/pg7100-huckleberry-finn-part1-ch01-05.txt" "$B/texts/pg7193-tom-sawyer-part1.txt" | jq -r .relation)
	check "same author, same layout, different books are unrelated ($r)" [ "$r" = unrelated ]
else
	echo "# real-book checks skipped: SIMBOOK_BOOKS not set or incomplete"
fi
exit $fail
