# A code judge that calls its target proxy: info, the default (judge) target, the case's
# target by name, one call past the cap, and one call with a wrong token. It reports what it
# saw in details so the test can check every answer.
import json
import os
import sys
import urllib.error
import urllib.request

payload = json.load(sys.stdin)
url = os.environ["AGENTV_TARGET_PROXY_URL"]
token = os.environ["AGENTV_TARGET_PROXY_TOKEN"]


def call(method, path, body=None, tok=token):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url + path, data=data, method=method)
    req.add_header("Authorization", "Bearer " + tok)
    req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)


seen = {"url": url, "calls": []}
seen["info"] = call("GET", "/info")
seen["calls"].append(call("POST", "/invoke", {"question": "Grade: " + payload["candidate_answer"], "systemPrompt": "be brief"}))
seen["calls"].append(call("POST", "/invoke", {"question": "Again?", "target": payload["config"]["target_name"]}))
seen["calls"].append(call("POST", "/invoke", {"question": "One too many"}))
seen["calls"].append(call("POST", "/invoke", {"question": "Wrong token"}, tok="not-the-token"))
seen["calls"].append(call("POST", "/invoke", {"question": "x", "target": "nope"}))
seen["calls"].append(call("POST", "/invoke", {"target": payload["config"]["target_name"]}))
seen["info_after"] = call("GET", "/info")
print(json.dumps({"score": 1, "hits": ["called the proxy"], "details": seen}))
