"""Java language facts the resolver needs: the primitive types, boxing
(JLS §5.1.7, §5.1.8) and widening primitive conversion (JLS §5.1.2)."""

from __future__ import annotations

PRIMITIVES = frozenset({"int", "long", "short", "byte", "char", "boolean", "float", "double", "void"})
OBJECT = "java.lang.Object"
_WIDEN = {
    "byte": {"byte", "short", "int", "long", "float", "double"},
    "short": {"short", "int", "long", "float", "double"},
    "char": {"char", "int", "long", "float", "double"},
    "int": {"int", "long", "float", "double"},
    "long": {"long", "float", "double"},
    "float": {"float", "double"},
    "double": {"double"},
    "boolean": {"boolean"},
}
BOX = {"int": "java.lang.Integer", "long": "java.lang.Long", "short": "java.lang.Short",
       "byte": "java.lang.Byte", "char": "java.lang.Character", "boolean": "java.lang.Boolean",
       "float": "java.lang.Float", "double": "java.lang.Double"}
UNBOX = {v: k for k, v in BOX.items()}
