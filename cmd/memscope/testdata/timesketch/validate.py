"""Runs Timesketch's JSONL import validation on a file; prints one JSON
summary: lines yielded and each event's timestamp as Timesketch sees it."""
import json
import sys

from timesketch.lib import utils

with open(sys.argv[1], encoding="utf-8") as fh:
    events = list(utils.read_and_validate_jsonl(fh))
print(json.dumps({"events": len(events), "timestamps": [e["timestamp"] for e in events], "datetimes": [e["datetime"] for e in events]}))
