import sys
sys.stdin.read()
print("not good enough")
sys.exit(1)
