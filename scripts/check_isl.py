#!/usr/bin/env python3
"""Parses every set, relation and schedule of `polyfold --emit scop` output
with islpy (pip install islpy) and reports the lines isl refuses.

Usage: polyfold --emit scop FILE | python3 scripts/check_isl.py
"""
import sys
import islpy as isl

bad = 0
n = 0
for line in sys.stdin:
    s = line.strip()
    for key in ("context:", "domain:", "write:", "read:", "schedule:"):
        if s.startswith(key):
            text = s[len(key):].strip()
            n += 1
            try:
                if key in ("context:", "domain:"):
                    isl.Set(text)
                else:
                    isl.Map(text)
            except Exception as e:  # noqa: BLE001
                bad += 1
                print(f"isl refuses: {text}\n  {e}")
print(f"{n} isl objects checked, {bad} refused")
sys.exit(1 if bad else 0)
