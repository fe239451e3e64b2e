"""Typing of expressions (pass 2): the static type of an expression node (JLS §15).

The ``FileResolver`` mixin :class:`ExpressionTyping` answers ``texpr(node)``
with an expression type (``_types.ExprType``): literals (JLS §3.10, §15.8.1),
names and field accesses, ``this``, creations, casts, array access and
creation, the conditional operator (JLS §15.25: numeric promotion, boxing
against ``null``), binary and unary operators (§15.17–§15.24: binary numeric
promotion, string concatenation), assignments, class literals, and lambdas
and method references as a :class:`~._types.LambdaT` shape until a target
type is known; method invocations are typed by resolving them
(``_calls``). None when the type is not known.
"""

from __future__ import annotations

from ._facts import (_F_ALTERNATIVE, _F_ARRAY, _F_BODY, _F_CONSEQUENCE, _F_FIELD, _F_LEFT, _F_OBJECT, _F_OPERAND,
                     _F_OPERATOR, _F_PARAMETERS, _F_RIGHT, _F_TYPE, NODE_TYPE, type_ref)
from ._types import METHOD_REF, NULL, ClassT, NullT, lambda_type
from ._index import BOX, OBJECT, PRIMITIVES, UNBOX

STRING = ClassT("java.lang.String")
CLASS = ClassT("java.lang.Class")
# one prebuilt value per primitive: a NamedTuple costs ~10x a tuple literal to build
PRIM_T = {p: ClassT(p) for p in PRIMITIVES}
INT, LONG, BOOLEAN, VOID = PRIM_T["int"], PRIM_T["long"], PRIM_T["boolean"], PRIM_T["void"]
_INT_LIT = ("decimal_integer_literal", "hex_integer_literal", "octal_integer_literal",
            "binary_integer_literal")
_NUM_ORDER = ["byte", "short", "char", "int", "long", "float", "double"]
_CMP_OPS = frozenset({"==", "!=", "<", ">", "<=", ">=", "&&", "||", "instanceof"})
_STATEMENT_EXPRS = frozenset({"method_invocation", "assignment_expression", "update_expression",
                              "object_creation_expression"})


def _lambda_shape(n):
    """(arity, "void"|"value"|"both") of a lambda: which function types it fits
    (JLS 15.27.2/15.27.3: void- and value-compatible bodies)."""
    ps = n.child_by_field_id(_F_PARAMETERS)
    if ps is None:
        arity = 0
    elif NODE_TYPE[ps.kind_id] == "identifier":
        arity = 1
    else:
        arity = sum(1 for c in ps.named_children
                    if NODE_TYPE[c.kind_id] in ("formal_parameter", "spread_parameter", "identifier"))
    body = n.child_by_field_id(_F_BODY)
    if body is None:
        return (arity, "both")
    if NODE_TYPE[body.kind_id] != "block":
        return (arity, "both" if NODE_TYPE[body.kind_id] in _STATEMENT_EXPRS else "value")
    stack = list(body.named_children)
    value = False
    while stack:
        c = stack.pop()
        if NODE_TYPE[c.kind_id] in ("lambda_expression", "class_body"):
            continue
        if NODE_TYPE[c.kind_id] == "return_statement":
            if c.named_children and NODE_TYPE[c.named_children[0].kind_id] not in ("line_comment", "block_comment"):
                value = True
                break
            return (arity, "void")
        stack.extend(c.named_children)
    return (arity, "value" if value else "void")


class ExpressionTyping:
    """Static types of expressions (see module docstring)."""

    def texpr(self, n):
        """Static type of an expression node (see _index module docstring), or None."""
        t = NODE_TYPE[n.kind_id]
        if t == "identifier":
            ty, found = self.ident(self._tx(n), n.start_byte)
            return ty
        if t == "method_invocation":
            return self.call(n).ret
        if t in ("string_literal", "text_block"):
            return STRING
        if t == "object_creation_expression":
            ty = n.child_by_field_id(_F_TYPE)
            if ty is None:
                return None
            tr = type_ref(ty, self.src)
            return self.ref(tr)
        if t == "this":
            return (self.ctx.type_key, ()) if self.ctx.type_key else None
        if t == "field_access":
            obj = n.child_by_field_id(_F_OBJECT)
            fld = n.child_by_field_id(_F_FIELD)
            if obj is None or fld is None:
                return None
            if NODE_TYPE[fld.kind_id] == "this":
                k = self.as_type_name(obj)
                return (k, ()) if k else None
            if NODE_TYPE[obj.kind_id] == "super":
                sup = self.superclass(self.ctx.type_key)
                return self.idx.field_type(sup, self._tx(fld))[0] if sup else None
            name = self._tx(fld)
            if NODE_TYPE[obj.kind_id] in ("identifier", "field_access"):
                if NODE_TYPE[obj.kind_id] == "identifier":
                    ot, found = self.ident(self._tx(obj), obj.start_byte)
                    if not found:
                        k = self.as_type_name(obj)
                        return self.idx.field_type(k, name)[0] if k else None
                else:
                    ot = self.texpr(obj)
                    if ot is None:
                        k = self.as_type_name(obj)
                        if k:
                            return self.idx.field_type(k, name)[0]
                        return None
            else:
                ot = self.texpr(obj)
            if ot is None:
                return None
            if ot[0].endswith("[]") and name == "length":
                return INT
            return self.field_type_of(ot, name)[0]
        if t in _INT_LIT:
            return LONG if self._tx(n)[-1:] in "lL" else INT
        if t in ("decimal_floating_point_literal", "hex_floating_point_literal"):
            return PRIM_T["float"] if self._tx(n)[-1:] in "fF" else PRIM_T["double"]
        if t in ("true", "false"):
            return BOOLEAN
        if t == "character_literal":
            return PRIM_T["char"]
        if t == "null_literal":
            return NULL
        if t == "cast_expression":
            ty = n.child_by_field_id(_F_TYPE)
            return self.ref(type_ref(ty, self.src)) if ty is not None else None
        if t == "parenthesized_expression":
            kids = n.named_children
            return self.texpr(kids[0]) if kids else None
        if t == "array_access":
            a = n.child_by_field_id(_F_ARRAY)
            at = self.texpr(a) if a is not None else None
            if at and at[0].endswith("[]"):
                return (at[0][:-2], at[1])
            return None
        if t == "array_creation_expression":
            ty = n.child_by_field_id(_F_TYPE)
            if ty is None:
                return None
            base = self.ref(type_ref(ty, self.src))
            if base is None:
                return None
            dims = sum(self._tx(c).count("[") for c in n.named_children
                       if NODE_TYPE[c.kind_id] in ("dimensions", "dimensions_expr"))
            return (base[0] + "[]" * max(dims, 1), ())
        if t == "ternary_expression":
            a = self.texpr(n.child_by_field_id(_F_CONSEQUENCE))
            b = self.texpr(n.child_by_field_id(_F_ALTERNATIVE))
            if a is None or b is None:
                return None
            if type(a) is NullT:
                return (BOX.get(b[0], b[0]), ()) if b[0] in PRIMITIVES else b
            if type(b) is NullT:
                return (BOX.get(a[0], a[0]), ()) if a[0] in PRIMITIVES else a
            pa, pb = UNBOX.get(a[0], a[0]), UNBOX.get(b[0], b[0])
            if pa in _NUM_ORDER and pb in _NUM_ORDER and (a[0] in PRIMITIVES or b[0] in PRIMITIVES
                                                          or pa != pb):
                # numeric conditional (JLS 15.25): binary numeric promotion
                if pa == pb:
                    return PRIM_T[pa]
                return PRIM_T[_NUM_ORDER[max(_NUM_ORDER.index(pa), _NUM_ORDER.index(pb), 3)]]
            if pa == pb == "boolean":
                return BOOLEAN
            return a if a == b or self.is_subtype(b[0], a[0]) is True else (
                b if self.is_subtype(a[0], b[0]) is True else None)
        if t == "binary_expression":
            op = n.child_by_field_id(_F_OPERATOR)
            ops = self._tx(op) if op is not None else ""
            if ops in _CMP_OPS:
                return BOOLEAN
            a = self.texpr(n.child_by_field_id(_F_LEFT))
            b = self.texpr(n.child_by_field_id(_F_RIGHT))
            if ops == "+" and (a == STRING or b == STRING):
                return STRING
            if a is None or b is None:
                return None
            pa, pb = UNBOX.get(a[0], a[0]), UNBOX.get(b[0], b[0])
            if pa in _NUM_ORDER and pb in _NUM_ORDER:
                if ops in ("<<", ">>", ">>>"):
                    return LONG if pa == "long" else INT
                w = max(_NUM_ORDER.index(pa), _NUM_ORDER.index(pb), 3)
                return PRIM_T[_NUM_ORDER[w]]
            if pa == pb == "boolean":
                return BOOLEAN
            return None
        if t == "unary_expression":
            op = n.child_by_field_id(_F_OPERATOR)
            if op is not None and self._tx(op) == "!":
                return BOOLEAN
            a = self.texpr(n.child_by_field_id(_F_OPERAND))
            if a and a[0] in ("byte", "short", "char"):
                return INT
            return a
        if t == "update_expression":
            kids = n.named_children
            return self.texpr(kids[0]) if kids else None
        if t == "assignment_expression":
            return self.texpr(n.child_by_field_id(_F_LEFT))
        if t == "instanceof_expression":
            return BOOLEAN
        if t == "lambda_expression":
            shape = _lambda_shape(n)
            if shape == (0, "both"):
                # `() -> call()`: value-compatible only if the call returns a value
                # (JLS 15.27.2); a parameterless body's type needs no target
                body = n.child_by_field_id(_F_BODY)
                if body is not None and NODE_TYPE[body.kind_id] == "method_invocation":
                    bt = self.call(body).ret
                    if bt is not None and bt[0] == "void":
                        shape = (0, "void")
            return lambda_type(shape)
        if t == "method_reference":
            return METHOD_REF
        if t == "class_literal":
            kids = n.named_children
            inner = self.ref(type_ref(kids[0], self.src)) if kids else None
            return ("java.lang.Class", (inner,))
        return None

    def superclass(self, key):
        if key is None:
            return None
        sups = self.idx.supers(key)
        td = self.tdecl(key)
        if not sups:
            return OBJECT
        if td is not None and td.kind == "interface":
            return None
        s = sups[0]
        return None if s.startswith("?") else s
