# A stand-in for Flask, which timesketch/lib/utils.py and errors.py import
# at module level but read_and_validate_jsonl never calls. Not Timesketch's.
def jsonify(*args, **kwargs):
    raise NotImplementedError("flask stand-in")


current_app = None
