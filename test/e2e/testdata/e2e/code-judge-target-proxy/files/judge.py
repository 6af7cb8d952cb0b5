import json, os, sys, urllib.error, urllib.request
json.load(sys.stdin)
def invoke(q):
    req = urllib.request.Request(os.environ["AGENTV_TARGET_PROXY_URL"] + "/invoke", method="POST",
        data=json.dumps({"question": q, "target": "default"}).encode(),
        headers={"Authorization": "Bearer " + os.environ["AGENTV_TARGET_PROXY_TOKEN"]})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)
first, second = invoke("again?"), invoke("and again?")
ok = first == (200, first[1]) and first[1]["rawText"] == "the target's answer" and second[0] == 429
print(json.dumps({"score": 1 if ok else 0, "details": {"first": first, "second": second}}))
