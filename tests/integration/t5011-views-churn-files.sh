#!/usr/bin/env bash
# t5011-views-churn-files: t5010 (views under concurrent deletes and
# renames: rsync, du, find, os.walk terminate, nothing dangles) with
# -o viewmode=files, where every view entry is a read-only regular file.
SIMBOOK_VIEWMODE=files exec bash "$(dirname "$0")/t5010-views-churn.sh"
