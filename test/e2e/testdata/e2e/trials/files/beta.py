import json, sys
p = json.load(sys.stdin)
print(json.dumps({'score': 1 if 'beta' in p['candidate_answer'] else 0, 'misses': [] if 'beta' in p['candidate_answer'] else ['no beta']}))
