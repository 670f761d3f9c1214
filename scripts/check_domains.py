#!/usr/bin/env python3
"""Brute-force check of a few grammar-tests domains with islpy: for small
parameter values, the integer points of the printed domain must be exactly
the iterations that the C loops execute (simulated here by hand in Python).

Usage: cd grammar-tests && python3 ../scripts/check_domains.py
"""
import sys
import islpy as isl


def dom(case, stmt):
    for line in open(case + ".expected"):
        s = line.strip()
        if s.startswith("domain:") and (" " + stmt + "[") in s:
            return isl.Set(s[len("domain:"):].strip())
    raise SystemExit(f"no domain of {stmt} in {case}")


def pts(s, params):
    for k, v in params.items():
        i = s.get_space().find_dim_by_name(isl.dim_type.param, k)
        s = s.fix_val(isl.dim_type.param, i, isl.Val.int_from_si(s.get_ctx(), v))
    out = []
    n = s.dim(isl.dim_type.set)
    s.foreach_point(lambda p: out.append(tuple(
        p.get_coordinate_val(isl.dim_type.set, k).to_python() for k in range(n))))
    return sorted(out)


checks = {
    "stride_neg": (dom("stride_neg", "S0"), {"N": 20}, sorted((i,) for i in range(19, -1, -3))),
    "triangular": (dom("triangular", "S1"), {"N": 6}, sorted((i, j) for i in range(6) for j in range(i + 1))),
    "if_or": (dom("if_or", "S0"), {"N": 5}, sorted((i, j) for i in range(5) for j in range(5) if i == 0 or j == 4)),
    "if_ne": (dom("if_ne", "S0"), {"N": 5}, sorted((i, j) for i in range(5) for j in range(5) if i != j)),
    "minmax_macro": (dom("minmax_macro", "S0"), {"N": 30, "B": 8},
                     sorted((t, i) for t in range(0, 30, 8) for i in range(max(t, 1), min(t + 8, 29)))),
    "stride_pos": (dom("stride_pos", "S0"), {"N": 11}, [(i,) for i in range(2, 11, 2)]),
    "if_not_else": (dom("if_not_else", "S1"), {"N": 10}, [(i,) for i in range(10) if i >= 5]),
    "local_param": (dom("local_param", "S0"), {"n": 7}, sorted((i, j) for i in range(7) for j in range(7 - i))),
    "max_lower": (dom("max_lower", "S0"), {"a": 3, "b": 5, "n": 9}, [(i,) for i in range(5, 10)]),
    "decreasing": (dom("decreasing", "S0"), {"N": 7}, [(i,) for i in range(7)]),
    "symbolic_step": (dom("symbolic_step", "S0"), {"t": 4, "b": 3, "n": 6}, [(4,), (5,)]),
}
bad = 0
for name, (s, params, expected) in checks.items():
    got = pts(s, params)
    ok = got == expected
    bad += not ok
    print(f"{name}: {'ok' if ok else f'MISMATCH got {got} expected {expected}'}")
sys.exit(1 if bad else 0)
