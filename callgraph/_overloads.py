"""Overload selection (JLS §15.12.2): which of a receiver's same-name methods a
call binds to, from the argument types.

Phases as the JLS has them: 1 — applicable by strict/loose invocation without
boxing (subtyping, primitive widening); 2 — with boxing and unboxing; 3 —
variable arity. The first phase with an applicable method decides; among
several, the most specific one (§15.12.2.5) wins. Argument types are the
resolver's expression types (``_types.ExprType``: ``ClassT("java.lang.String")``,
``ClassT("int")``, ``NULL``, a ``LambdaT`` with its shape, an ``UnknownT``,
None unknown); an unknown argument makes a method "maybe" applicable (None),
which keeps the overload undecided rather than guessed. Pure functions over a
``ProjectIndex``.
"""

from __future__ import annotations

from ._index import BOX, OBJECT, PRIMITIVES, UNBOX, _WIDEN
from ._types import LambdaT, NullT, UnknownT


def arity_ok(c, n: int) -> bool:
    """Can candidate ``c`` (a ``MethodCandidate``) take ``n`` arguments?"""
    pt = c.ptypes
    return len(pt) == n or (c.varargs and n >= len(pt) - 1)


def assignable(idx, a, p: str, phase: int):
    """Can an argument of type ``a`` be passed to parameter type ``p`` (erased) in
    ``phase``? True / False / None (maybe: a type unknown)."""
    if a is None:
        return None
    ta = type(a)
    if ta is NullT:
        return p not in PRIMITIVES
    if ta is LambdaT:
        if p in PRIMITIVES or p.endswith("[]"):
            return False
        if not a.shape:
            # a method reference: compatible only with a functional interface (JLS 15.13.2)
            return idx.sam(p) != "none"
        sam = idx.sam(p)
        if sam is None:
            return None
        if sam == "none":
            return False
        arity, shape = a.shape
        if arity != sam[0]:
            return False
        return shape in (("void", "both") if sam[1] else ("value", "both"))
    if ta is UnknownT:
        # a reference of a type outside the classpath: fits Object; a primitive
        # or array parameter never (it is a class type); else maybe
        return True if p == OBJECT else (False if p in PRIMITIVES or p.endswith("[]") else None)
    an = a[0]
    if an in PRIMITIVES:
        if p in PRIMITIVES:
            return p in _WIDEN.get(an, ())
        if phase >= 2:
            return idx.is_subtype(BOX.get(an, an), p)
        return False
    if p in PRIMITIVES:
        if phase >= 2 and an in UNBOX:
            return p in _WIDEN.get(UNBOX[an], ())
        return False
    return idx.is_subtype(an, p)


def applicable(idx, c, ats, phase: int):
    """Is ``c`` applicable to argument types ``ats`` in ``phase`` (1–3)? True / False / None (maybe)."""
    pt = c.ptypes
    n = len(ats)
    if phase < 3:
        if len(pt) != n:
            return False
        ps = pt
    else:
        if not c.varargs or n < len(pt) - 1:
            return False
        ps = list(pt[:-1]) + [pt[-1][:-2]] * (n - len(pt) + 1)
    maybe = False
    for a, p in zip(ats, ps):
        ok = assignable(idx, a, p, phase)
        if ok is False:
            return False
        if ok is None:
            maybe = True
    return None if maybe else True


def more_specific(idx, c1, c2, n: int, ats=()) -> bool:
    """Is ``c1`` more specific than ``c2`` for a call with ``n`` arguments of types ``ats`` (§15.12.2.5)?"""
    p1, p2 = c1.ptypes, c2.ptypes
    if len(p1) != len(p2):
        return len(p1) > len(p2) if n else False
    for k, (a, b) in enumerate(zip(p1, p2)):
        if a == b:
            continue
        at = ats[k] if k < len(ats) else None
        if type(at) is LambdaT and at.shape and at.shape[0] == 0 and at.shape[1] != "void" \
                and a not in PRIMITIVES and b not in PRIMITIVES:
            # a parameterless (so explicitly typed) lambda: a value-returning
            # function type is more specific than a void one (JLS 15.12.2.5)
            sa, sb = idx.sam(a), idx.sam(b)
            if isinstance(sa, tuple) and isinstance(sb, tuple) and sa[0] == sb[0] == 0 \
                    and sb[1] and not sa[1] and idx.is_subtype(b, a) is False:
                continue
        if a in PRIMITIVES and b in PRIMITIVES:
            if b not in _WIDEN.get(a, ()):
                return False
            continue
        if idx.is_subtype(a, b) is not True:
            return False
    return True


def choose(idx, cands, n: int, arg_types):
    """``(chosen, decided_by_types)`` among ``cands`` for a call with ``n``
    arguments; ``arg_types()`` gives their types (called only when some
    candidate fits the arity). ``decided_by_types`` is True when the types
    (all known) pick the one chosen method, False when only the arity or an
    unknown type left it, None when no candidate fits the arity."""
    ar = [c for c in cands if arity_ok(c, n)]
    if not ar:
        return ar, None
    ats = arg_types()
    all_known = all(a is not None for a in ats)
    if len(ar) == 1:
        if not all_known:
            return ar, False
        ok = any(applicable(idx, ar[0], ats, ph) is True for ph in (1, 2, 3))
        return ar, ok
    for phase in (1, 2, 3):
        app = []
        for c in ar:
            ok = applicable(idx, c, ats, phase)
            if ok is not False:
                app.append((c, ok))
        if not app:
            continue
        if len(app) == 1:
            return [app[0][0]], all_known and app[0][1] is True
        # most specific
        best = [c for c, _ in app if all(c is d or more_specific(idx, c, d, n, ats) for d, _ in app)]
        if len(best) == 1:
            return best, all_known and all(ok is True for _, ok in app)
        return [c for c, _ in app], False
    return ar, False
