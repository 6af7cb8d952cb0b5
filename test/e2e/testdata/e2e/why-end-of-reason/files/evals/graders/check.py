import sys
sys.stderr.write('Traceback (most recent call last):\n  File "check.py", line 3, in <module>\nFileNotFoundError: [Errno 2] No such file or directory: "/work/a-long-folder-name/a-long-folder-name/a-long-folder-name/a-long-folder-name/a-long-folder-name/a-long-folder-name/a-long-folder-name/a-long-folder-name/data/expected_answers_for_the_poem.json"\n')
sys.exit(2)
