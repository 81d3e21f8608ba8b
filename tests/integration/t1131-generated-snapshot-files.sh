#!/usr/bin/env bash
# t1131: t1130 (generated files read as stat said, under churn) with
# -o viewmode=files, where the view entries are read-only files too.
SIMBOOK_VIEWMODE=files exec bash "$(dirname "$0")/t1130-generated-snapshot.sh"
