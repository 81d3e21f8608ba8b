#!/usr/bin/env bash
# t3300-translations-language: the language of each book, shown.  The real
# translations of the shared books (Alice in English, German and French;
# the Iliad of Butler and of Pope) copied in through a mount: every
# .similar.tsv row ends with the listed book's language (de, fr, en: the
# column after the title), `simbook similar --tsv` gives the same rows and
# `--json` the same "language", `simbook compare` prints both books'
# languages (text and JSON); every translation the views list is listed as
# another translation, never a duplicate, with the language the file has.
# Prints which translation pairs the views list.
export SIMBOOK_CASE_TIMEOUT=300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/viewlib.sh"
B=${SIMBOOK_BOOKS:-$top/../shared/books}
for f in texts/pg11-alice-in-wonderland.txt translations/pg19778-alice-german-zimmermann-latin1.txt \
	translations/pg55456-alice-french-bue.txt translations/pg2199-iliad-butler.txt \
	translations/pg6130-iliad-pope.txt; do
	[ -f "$B/$f" ] || skip "shared books absent ($B/$f)"
done
command -v jq >/dev/null || skip "no jq"
FS_ARGS=()
SB=$SIMBOOK_BUILD/simbook
EN=pg11-alice-in-wonderland.txt DE=pg19778-alice-german-zimmermann-latin1.txt
FR=pg55456-alice-french-bue.txt

say "compare: each book's language, text and JSON"
"$SB" compare "$B/texts/$EN" "$B/translations/$DE" >"$T/cmp.txt" || true
grep -qx "language: *A en, B de" "$T/cmp.txt" || fail "compare text: $(cat "$T/cmp.txt")"
"$SB" compare --json "$B/translations/$FR" "$B/translations/$DE" >"$T/cmp.json" || true
[ "$(jq -r '[.a_language, .b_language, .relation] | join(" ")' "$T/cmp.json")" = \
	"fr de other-translation" ] || fail "compare json: $(cat "$T/cmp.json")"
# the language is the last member: appended, nothing reordered
[ "$(jq -r 'keys_unsorted[-2:] | join(",")' "$T/cmp.json")" = "a_language,b_language" ] ||
	fail "compare json keys: $(jq -c 'keys_unsorted' "$T/cmp.json")"
printf 'no language here at all 12345\n' >"$T/short.txt"
"$SB" compare "$T/short.txt" "$B/texts/$EN" >"$T/cmp2.txt" || true
grep -qx "language: *A unknown, B en" "$T/cmp2.txt" || fail "compare unknown: $(cat "$T/cmp2.txt")"

mount_fs -o rescan=0
mkdir "$MNT/alice" "$MNT/iliad"
cp "$B/texts/$EN" "$B/translations/$DE" "$B/translations/$FR" "$MNT/alice/"
cp "$B/translations/pg2199-iliad-butler.txt" "$B/translations/pg6130-iliad-pope.txt" "$MNT/iliad/"
wait_idle 240

# lang_of BOOK OTHER: the language column of OTHER in BOOK's .similar.tsv
lang_of() {
	awk -F'\t' -v p="$2" 'NR > 1 && $9 == p { print $11; exit }' "$MNT/similar/$1/.similar.tsv"
}
rel_of() {
	awk -F'\t' -v p="$2" 'NR > 1 && $9 == p { print $3; exit }' "$MNT/similar/$1/.similar.tsv"
}

say ".similar.tsv: the language column after the title"
for b in alice/$EN alice/$DE alice/$FR iliad/pg2199-iliad-butler.txt iliad/pg6130-iliad-pope.txt; do
	tsv=$MNT/similar/$b/.similar.tsv
	[ "$(head -n 1 "$tsv" | cut -f10-)" = $'title\tlanguage' ] || fail "$b header: $(head -n 1 "$tsv")"
	[ "$(awk -F'\t' 'NF != 11' "$tsv" | wc -l)" -eq 0 ] || fail "$b: not eleven columns: $(cat "$tsv")"
done

listed=0
while read -r a b la lb; do
	r=$(rel_of "$a" "$b")
	printf '# %-48s %-40s %s\n' "$a" "$b" "${r:-not listed}"
	[ -z "$r" ] && continue
	listed=$((listed + 1))
	[ "$r" = other-translation ] || fail "$a lists $b as $r"
	[ "$(lang_of "$a" "$b")" = "$lb" ] || fail "$a: language of $b: '$(lang_of "$a" "$b")', not $lb"
	[ "$(lang_of "$b" "$a")" = "$la" ] || fail "$b: language of $a: '$(lang_of "$b" "$a")', not $la"
	# the CLI on the library gives the same rows
	"$SB" similar --tsv "$SRC/$a" >"$T/cli.tsv" || fail "simbook similar --tsv $a"
	cmp -s "$T/cli.tsv" "$MNT/similar/$a/.similar.tsv" ||
		fail "simbook similar --tsv $a differs: $(diff "$T/cli.tsv" "$MNT/similar/$a/.similar.tsv")"
	"$SB" similar --json "$SRC/$a" >"$T/cli.json" || fail "simbook similar --json $a"
	[ "$(jq -r --arg p "$b" 'select(.path == $p) | .language' "$T/cli.json")" = "$lb" ] ||
		fail "simbook similar --json $a: $(cat "$T/cli.json")"
done <<EOF
alice/$EN alice/$FR en fr
alice/$EN alice/$DE en de
alice/$DE alice/$FR de fr
iliad/pg2199-iliad-butler.txt iliad/pg6130-iliad-pope.txt en en
EOF
echo "# translation pairs listed: $listed of 4"
[ "$listed" -ge 1 ] || fail "no translation pair listed"
umount_fs
echo ok
