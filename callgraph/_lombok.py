"""Members that Lombok generates at compile time, modelled from pass-1 facts.

Lombok (https://projectlombok.org/features/) rewrites a class's syntax tree
during javac's annotation processing; the generated getters, setters,
constructors, builders, ``with``-ers, loggers and delegates are ordinary
members of the class files, so a call graph built from source must know them
or every ``person.getName()`` and ``log.info(...)`` is lost.

``plan_type`` turns one ``TypeDecl`` (its annotations, fields and methods as
written) plus the ``lombok.config`` settings that apply to its file into a
``LombokPlan``: the methods to add (``GenMethod``, parameter and return types
as ``TypeRef`` tuples in the declaring type's scope), the fields to add (the
logger), and the nested types to add (``XBuilder``). The project index
(``_index.py``) resolves the types and adds them as members with
``generated_by`` set and LOC 0. Members written by hand win: a method whose
name (ignoring case, as Lombok compares) and parameter count match an
existing one is not generated, and ``@Data`` adds no constructor when one is
written.

``LombokConfig`` reads ``lombok.config`` files as untrusted data: regular
files only (no symlinks, devices or FIFOs), inside the project tree, at most
``MAX_CONFIG_BYTES`` each; ``import`` directives are ignored. A folder's
settings apply to every source below it; a nearer file overrides farther
ones; ``config.stopBubbling = true`` stops the search upwards.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

from ._facts import FieldDecl, TypeDecl

MAX_CONFIG_BYTES = 64 * 1024

# Logger annotation → the type of the field it generates (None: from lombok.config)
LOGGERS = {
    "lombok.extern.slf4j.Slf4j": "org.slf4j.Logger",
    "lombok.extern.slf4j.XSlf4j": "org.slf4j.ext.XLogger",
    "lombok.extern.log4j.Log4j2": "org.apache.logging.log4j.Logger",
    "lombok.extern.log4j.Log4j": "org.apache.log4j.Logger",
    "lombok.extern.java.Log": "java.util.logging.Logger",
    "lombok.extern.apachecommons.CommonsLog": "org.apache.commons.logging.Log",
    "lombok.extern.jbosslog.JBossLog": "org.jboss.logging.Logger",
    "lombok.extern.flogger.Flogger": "com.google.common.flogger.FluentLogger",
    "lombok.CustomLog": None,  # from lombok.log.custom.declaration
}
_KNOWN = frozenset({
    "lombok.Getter", "lombok.Setter", "lombok.Data", "lombok.Value", "lombok.Builder",
    "lombok.Builder.Default", "lombok.Singular", "lombok.With", "lombok.NoArgsConstructor",
    "lombok.AllArgsConstructor", "lombok.RequiredArgsConstructor", "lombok.ToString",
    "lombok.EqualsAndHashCode", "lombok.NonNull", "lombok.experimental.Accessors",
    "lombok.experimental.SuperBuilder", "lombok.experimental.Delegate", "lombok.Delegate",
    "lombok.experimental.NonFinal", "lombok.experimental.FieldDefaults", "lombok.experimental.Wither",
    *LOGGERS,
})
_PACKAGES = frozenset(n.rsplit(".", 1)[0] for n in _KNOWN if n != "lombok.Builder.Default")
_COLLECTIONS = {  # @Singular: element arity and the plural method's parameter type
    "java.util.List": (1, "java.util.Collection"), "java.util.Collection": (1, "java.util.Collection"),
    "java.util.Set": (1, "java.util.Collection"), "java.util.SortedSet": (1, "java.util.Collection"),
    "java.util.NavigableSet": (1, "java.util.Collection"), "java.lang.Iterable": (1, "java.util.Collection"),
    "java.util.Map": (2, "java.util.Map"), "java.util.SortedMap": (2, "java.util.Map"),
    "java.util.NavigableMap": (2, "java.util.Map"),
    "com.google.common.collect.ImmutableList": (1, "java.lang.Iterable"),
    "com.google.common.collect.ImmutableSet": (1, "java.lang.Iterable"),
    "com.google.common.collect.ImmutableSortedSet": (1, "java.lang.Iterable"),
    "com.google.common.collect.ImmutableMap": (2, "java.util.Map"),
    "com.google.common.collect.ImmutableSortedMap": (2, "java.util.Map"),
}
_OBJ = ("java.lang.Object", (), 0)
_BOOL = ("boolean", (), 0)
_INT = ("int", (), 0)
_STR = ("java.lang.String", (), 0)
_VOID = ("void", (), 0)


@dataclass(frozen=True, slots=True)
class GenMethod:
    """A method (``<init>`` for constructors) that Lombok generates in type ``owner``.

    ``params`` are ``(name, TypeRef)`` in ``owner``'s scope (``"="``-prefixed
    names are already resolved keys/FQNs); ``returns`` a TypeRef or None for
    constructors; ``generated_by`` the Lombok annotation's FQN.
    """

    owner: str
    name: str
    params: tuple
    returns: tuple | None
    static: bool
    generated_by: str
    abstract: bool = False
    varargs: bool = False


@dataclass(frozen=True, slots=True)
class GenType:
    """A nested type Lombok generates (``Outer.XBuilder``): ``key`` its source FQN."""

    key: str
    name: str
    outer: str
    type_params: tuple
    superclass: tuple | None
    abstract: bool
    generated_by: str


@dataclass(slots=True)
class LombokPlan:
    """What Lombok adds to one type (see module docstring)."""

    methods: list = field(default_factory=list)
    fields: list = field(default_factory=list)  # FieldDecl
    types: list = field(default_factory=list)  # GenType
    delegates: list = field(default_factory=list)  # (field TypeRef, generated_by)
    super_builder_parent: str | None = None  # superclass as written, for @SuperBuilder


# ----------------------------------------------------------------- lombok.config
_LINE = re.compile(r"^\s*([A-Za-z][\w.]*)\s*(\+=|-=|=)\s*(.*?)\s*$")
_CLEAR = re.compile(r"^\s*clear\s+([A-Za-z][\w.]*)\s*$")


class LombokConfig:
    """``lombok.config`` settings per source folder (see module docstring).

    ``settings(rel_dir)`` returns ``{key: value}`` (lower-case keys; list keys
    such as ``lombok.accessors.prefix`` map to a tuple) for a folder given
    relative to the project root. ``problems`` lists ``(file, reason)`` of
    config files that were not read.
    """

    def __init__(self, root: str | Path | None):
        self.root = None
        if root is not None:
            r = Path(root)
            self.root = (r if r.is_dir() else r.parent).resolve()
        self._memo: dict[str, dict] = {}
        self.problems: list[tuple[str, str]] = []

    def _read(self, rel_dir: str) -> list | None:
        """The parsed directives of ``rel_dir/lombok.config`` or None."""
        if self.root is None:
            return None
        p = self.root / rel_dir / "lombok.config" if rel_dir else self.root / "lombok.config"
        rel = p.relative_to(self.root).as_posix()
        try:
            st = os.lstat(p)
        except OSError:
            return None
        if not stat.S_ISREG(st.st_mode):
            self.problems.append((rel, "lombok.config is not a regular file (symlink, device or FIFO): ignored"))
            return None
        if st.st_size > MAX_CONFIG_BYTES:
            self.problems.append((rel, f"lombok.config of {st.st_size} bytes exceeds {MAX_CONFIG_BYTES}: ignored"))
            return None
        try:
            fd = os.open(p, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
            with os.fdopen(fd, "rb") as f:
                data = f.read(MAX_CONFIG_BYTES + 1)[:MAX_CONFIG_BYTES]
        except OSError as e:
            self.problems.append((rel, f"lombok.config unreadable: {e.strerror or e}"))
            return None
        out = []
        for raw in data.decode("utf-8", "replace").splitlines():
            line = raw.split("#", 1)[0].strip()
            if not line or line.startswith("import "):
                continue
            m = _CLEAR.match(line)
            if m:
                out.append((m.group(1).lower(), "clear", None))
                continue
            m = _LINE.match(line)
            if m:
                out.append((m.group(1).lower(), m.group(2), m.group(3)))
        return out

    def settings(self, rel_dir: str) -> dict:
        """Effective settings for sources in folder ``rel_dir`` (POSIX, relative)."""
        r = self._memo.get(rel_dir)
        if r is not None:
            return r
        chain = []
        d = rel_dir.strip("/")
        while True:
            directives = self._read(d)
            if directives:
                chain.append(directives)
                if any(k == "config.stopbubbling" and op == "=" and v.lower() == "true"
                       for k, op, v in directives):
                    break
            if not d:
                break
            d = d.rsplit("/", 1)[0] if "/" in d else ""
        out: dict = {}
        for directives in reversed(chain):  # farthest first: nearer files override
            for k, op, v in directives:
                if op == "clear":
                    out.pop(k, None)
                elif op == "=":
                    out[k] = v
                elif op == "+=":
                    cur = out.get(k, ())
                    out[k] = (cur if isinstance(cur, tuple) else ()) + (v,)
                elif op == "-=":
                    cur = out.get(k, ())
                    out[k] = tuple(x for x in (cur if isinstance(cur, tuple) else ()) if x != v)
        self._memo[rel_dir] = out
        return out


# ----------------------------------------------------------------- annotation names
def lombok_name(written: str, imports, shadowed=frozenset()) -> str | None:
    """FQN of the Lombok annotation written as ``written`` in a file with
    ``imports``, or None when it is not one of Lombok's. ``shadowed`` are
    simple names of project types in scope that an on-demand import cannot
    reach past."""
    if written in _KNOWN:
        return written
    head, _, rest = written.partition(".")
    for imp in imports:
        if imp.static:
            continue
        if not imp.on_demand and imp.name.rsplit(".", 1)[-1] == head:
            cand = imp.name + ("." + rest if rest else "")
            return cand if cand in _KNOWN else None
    if head in shadowed:
        return None
    for imp in imports:
        if imp.on_demand and not imp.static and imp.name in _PACKAGES:
            cand = f"{imp.name}.{written}"
            if cand in _KNOWN:
                return cand
    return None


def _str_list(text: str | None) -> tuple:
    """String literals of an annotation value (``"m"`` or ``{"m", "f"}``)."""
    if not text:
        return ()
    return tuple(re.findall(r'"((?:[^"\\]|\\.)*)"', text))


def _str(text: str | None) -> str | None:
    v = _str_list(text)
    return v[0] if v else None


def _bool(text: str | None, default: bool) -> bool:
    if text is None:
        return default
    t = text.strip().lower()
    return t == "true" if t in ("true", "false") else default


def _access_none(a) -> bool:
    v = a.arg("value") or ""
    return v.split(".")[-1] == "NONE"


def capitalize(s: str) -> str:
    return s[:1].upper() + s[1:]


def _strip_prefix(name: str, prefixes) -> str | None:
    """Lombok's prefix rule: a prefix ending in a letter must be followed by a
    non-lower-case character; no matching prefix → no accessors."""
    if not prefixes:
        return name
    for p in prefixes:
        if len(name) <= len(p) or not name.startswith(p):
            if p == "":
                return name
            continue
        nxt = name[len(p)]
        if p and p[-1].isalpha() and nxt.islower():
            continue
        return nxt.lower() + name[len(p) + 1:]
    return None


def _singular(plural: str) -> str | None:
    """Lombok's auto-singularisation (English; the common suffix rules)."""
    low = plural.lower()
    for suf, rep in (("ies", "y"), ("sses", "ss"), ("xes", "x"), ("ches", "ch"), ("shes", "sh"),
                     ("people", "person"), ("children", "child"), ("s", "")):
        if low.endswith(suf) and len(plural) > len(suf):
            return plural[: len(plural) - len(suf)] + rep
    return None


# ----------------------------------------------------------------- the plan
class _Ctx:
    def __init__(self, td: TypeDecl, imports, shadowed, cfg: dict):
        self.td = td
        self.cfg = cfg
        self.ann: dict = {}
        for a in td.annotations:
            n = lombok_name(a.name, imports, shadowed)
            if n:
                self.ann.setdefault(n, a)
        self.fann: dict = {}
        for f in td.fields:
            d = {}
            for a in f.annotations:
                n = lombok_name(a.name, imports, shadowed)
                if n:
                    d.setdefault(n, a)
            self.fann[f.name] = d
        self.imports, self.shadowed = imports, shadowed
        self.existing = [(m.name.lower(), len(m.params), m.varargs) for m in td.methods]
        self.self_ref = ("=" + td.key, tuple((n, (), 0) for n, _ in td.type_params), 0)

    def has_method(self, name: str, n: int) -> bool:
        low = name.lower()
        return any(nm == low and (k == n or va) for nm, k, va in self.existing)

    def cfg_bool(self, key: str, default: bool) -> bool:
        return _bool(self.cfg.get(key), default)


def plan_type(td: TypeDecl, imports, shadowed, cfg: dict) -> LombokPlan | None:
    """The members Lombok generates for ``td`` (None when it generates none).

    Parameters
    ----------
    td : TypeDecl
        A non-local, non-anonymous type as extracted in pass 1.
    imports : tuple of Import
        The file's imports (Lombok annotations are found through them).
    shadowed : set of str
        Simple names of project types visible in the file's package.
    cfg : dict
        ``LombokConfig.settings`` for the file's folder.
    """
    if td.local or td.anonymous or td.kind == "annotation":
        return None
    if not any(lombok_name(a.name, imports, shadowed) for a in td.annotations) and not any(
            lombok_name(a.name, imports, shadowed) for f in td.fields for a in f.annotations) and not any(
            lombok_name(a.name, imports, shadowed) for m in td.methods for a in m.annotations):
        return None
    c = _Ctx(td, imports, shadowed, cfg)
    plan = LombokPlan()
    ann = c.ann
    value = "lombok.Value" in ann
    data = "lombok.Data" in ann
    fdef = ann.get("lombok.experimental.FieldDefaults")
    make_final = value or (fdef is not None and _bool(fdef.arg("makeFinal"), False))
    inst = [f for f in td.fields if not f.static and not f.name.startswith("$")]
    if td.kind == "record":
        inst = []  # components already have accessors; Lombok refuses @Getter/@Setter there

    def final(f: FieldDecl) -> bool:
        return f.final or (make_final and "lombok.experimental.NonFinal" not in c.fann[f.name])

    def add(name, params, returns, static, by, owner=None, abstract=False):
        plan.methods.append(GenMethod(owner or td.key, name, tuple(params), returns, static, by, abstract))

    # ---- accessors
    cls_acc = ann.get("lombok.experimental.Accessors")

    def accessors(f):
        fa = c.fann[f.name].get("lombok.experimental.Accessors")

        def pick(key, conv):
            for a in (fa, cls_acc):
                if a is not None and a.arg(key) is not None:
                    return conv(a.arg(key))
            return None
        fluent = pick("fluent", lambda v: _bool(v, False))
        if fluent is None:
            fluent = c.cfg_bool("lombok.accessors.fluent", False)
        chain = pick("chain", lambda v: _bool(v, False))
        if chain is None:
            chain = c.cfg_bool("lombok.accessors.chain", fluent)
        prefix = pick("prefix", _str_list)
        if prefix is None:
            p = c.cfg.get("lombok.accessors.prefix", ())
            prefix = p if isinstance(p, tuple) else (p,)
        return fluent, chain, prefix

    def is_bool(f):
        return f.type == _BOOL and not c.cfg_bool("lombok.getter.noisprefix", False)

    def getter_name(f):
        fluent, _, prefix = accessors(f)
        base = _strip_prefix(f.name, prefix)
        if base is None:
            return None
        if fluent:
            return base
        if is_bool(f):
            if base.startswith("is") and len(base) > 2 and base[2].isupper():
                return base
            return "is" + capitalize(base)
        return "get" + capitalize(base)

    def setter_name(f, pre="set"):
        fluent, _, prefix = accessors(f)
        base = _strip_prefix(f.name, prefix)
        if base is None:
            return None
        if is_bool(f) and base.startswith("is") and len(base) > 2 and base[2].isupper():
            base = base[2:]
        if fluent and pre == "set":
            return base
        return pre + capitalize(base)

    cls_get = ann.get("lombok.Getter")
    cls_set = ann.get("lombok.Setter")
    cls_with = ann.get("lombok.With") or ann.get("lombok.experimental.Wither")
    type_get = (cls_get is not None and not _access_none(cls_get)) or data or value
    type_set = (cls_set is not None and not _access_none(cls_set)) or data
    for f in td.fields:
        if f.name.startswith("$") or td.kind == "record":
            continue
        fa = c.fann[f.name]
        g = fa.get("lombok.Getter")
        if g is not None:
            want, by = not _access_none(g), "lombok.Getter"
        else:
            want = type_get and not f.static
            by = "lombok.Getter" if cls_get is not None else ("lombok.Value" if value else "lombok.Data")
        if want and not (td.kind == "enum" and f.static):
            n = getter_name(f)
            alts = [n] if n else []
            if n and is_bool(f) and n.startswith("is"):
                alts.append("get" + n[2:])
            if n and not any(c.has_method(a, 0) for a in alts):
                add(n, (), f.type, f.static, by)
        s = fa.get("lombok.Setter")
        if s is not None:
            want, by = not _access_none(s) and not final(f), "lombok.Setter"
        else:
            want = type_set and not f.static and not final(f)
            by = "lombok.Setter" if cls_set is not None else "lombok.Data"
        if want:
            n = setter_name(f)
            if n and not c.has_method(n, 1):
                _, chain, _ = accessors(f)
                add(n, ((f.name, f.type),), c.self_ref if chain else _VOID, f.static, by)
        w = fa.get("lombok.With") or fa.get("lombok.experimental.Wither")
        if w is not None:
            want = not _access_none(w)
        else:
            want = cls_with is not None and not _access_none(cls_with) and not f.static
        if want and not f.static and not (final(f) and f.initialized):
            n = setter_name(f, "with")
            if n and not c.has_method(n, 1):
                add(n, ((f.name, f.type),), c.self_ref, False,
                    "lombok.With" if (w or cls_with).name.endswith("With") else "lombok.experimental.Wither")

    # ---- constructors
    def ctor_fields(kind):
        if kind == "no":
            return []
        out = []
        for f in inst:
            default = "lombok.Builder.Default" in c.fann[f.name]
            if final(f) and f.initialized and not default:
                continue
            if kind == "required" and not ((final(f) and not f.initialized) or
                                           ("lombok.NonNull" in c.fann[f.name] and not f.initialized)):
                continue
            out.append((f.name, f.type))
        return out

    written_ctor = any(m.name == "<init>" for m in td.methods)
    ctor_sigs = set()

    def add_ctor(params, by, static_name=None):
        sig = tuple(p[1] for p in params)
        if sig in ctor_sigs:
            return
        ctor_sigs.add(sig)
        add("<init>", params, None, False, by)
        if static_name:
            add(static_name, params, c.self_ref, True, by)

    explicit_ctor_ann = False
    for fqn, kind in (("lombok.NoArgsConstructor", "no"), ("lombok.AllArgsConstructor", "all"),
                      ("lombok.RequiredArgsConstructor", "required")):
        a = ann.get(fqn)
        if a is not None and td.kind in ("class", "enum"):
            explicit_ctor_ann = True
            if not _access_none(a):
                add_ctor(ctor_fields(kind), fqn, _str(a.arg("staticName")))
    b = ann.get("lombok.Builder")
    if td.kind == "class" and not explicit_ctor_ann and not written_ctor:
        if b is not None:
            pass  # @Builder's all-args constructor (below) replaces @Data's/@Value's
        elif value:
            add_ctor(ctor_fields("all"), "lombok.Value", _str(ann["lombok.Value"].arg("staticConstructor")))
        elif data:
            add_ctor(ctor_fields("required"), "lombok.Data", _str(ann["lombok.Data"].arg("staticConstructor")))

    # ---- toString / equals / hashCode
    if "lombok.ToString" in ann or data or value:
        by = "lombok.ToString" if "lombok.ToString" in ann else ("lombok.Data" if data else "lombok.Value")
        if not c.has_method("toString", 0):
            add("toString", (), _STR, False, by)
    if ("lombok.EqualsAndHashCode" in ann or data or value) and td.kind == "class":
        by = "lombok.EqualsAndHashCode" if "lombok.EqualsAndHashCode" in ann else (
            "lombok.Data" if data else "lombok.Value")
        if not c.has_method("equals", 1) and not c.has_method("hashCode", 0):
            add("equals", (("o", _OBJ),), _BOOL, False, by)
            add("hashCode", (), _INT, False, by)
            # canEqual: only a class that can have subclasses needs it
            if not value and not td.final:
                add("canEqual", (("other", _OBJ),), _BOOL, False, by)

    # ---- loggers
    for fqn, ltype in LOGGERS.items():
        if fqn not in ann:
            continue
        if ltype is None:
            ltype = _custom_logger_type(c.cfg.get("lombok.log.custom.declaration"))
            if ltype is None:
                continue
        fname = c.cfg.get("lombok.log.fieldname") or "log"
        if not re.fullmatch(r"[A-Za-z_$][\w$]*", fname):
            fname = "log"
        static = c.cfg_bool("lombok.log.fieldisstatic", True)
        if not any(f.name == fname for f in td.fields):
            plan.fields.append(FieldDecl(fname, ("=" + ltype, (), 0), static, (), True, True))

    # ---- builders
    for m in td.methods:  # @Builder on a constructor or static method
        for a in m.annotations:
            if lombok_name(a.name, imports, shadowed) == "lombok.Builder":
                if m.name == "<init>":
                    ret = c.self_ref
                elif m.static and m.returns is not None:
                    ret = m.returns
                else:
                    continue
                _builder(c, plan, a, list(m.params), ret, add, from_type=False)
    if b is not None and td.kind in ("class", "record"):
        if td.kind == "record":
            bfields = list(td.components)
        else:
            bfields = [(f.name, f.type) for f in inst
                       if not (final(f) and f.initialized and "lombok.Builder.Default" not in c.fann[f.name])]
        if td.kind == "class" and not explicit_ctor_ann and not written_ctor:
            add_ctor(bfields, "lombok.Builder")
        _builder(c, plan, b, bfields, c.self_ref, add, from_type=True)
    sb = ann.get("lombok.experimental.SuperBuilder")
    if sb is not None and td.kind == "class":
        _super_builder(c, plan, sb, [(f.name, f.type) for f in inst if not (
            final(f) and f.initialized and "lombok.Builder.Default" not in c.fann[f.name])], add)

    # ---- @Delegate (expanded by the index, which knows the delegate's members)
    for f in td.fields:
        fa = c.fann[f.name]
        d = fa.get("lombok.experimental.Delegate") or fa.get("lombok.Delegate")
        if d is not None and not f.static:
            plan.delegates.append((f.type, d.name if d.name.startswith("lombok.") else
                                   lombok_name(d.name, imports, shadowed)))
    if not (plan.methods or plan.fields or plan.types or plan.delegates):
        return None
    return plan


def _custom_logger_type(decl) -> str | None:
    """The logger type of ``lombok.log.custom.declaration``
    (``[LoggerType ]FactoryType.method(params)``)."""
    if not decl or not isinstance(decl, str):
        return None
    decl = decl.strip()
    parts = decl.split(None, 1)
    t = parts[0] if len(parts) == 2 else decl.split("(", 1)[0].rsplit(".", 1)[0]
    return t if re.fullmatch(r"[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*", t or "") else None


def _builder(c: _Ctx, plan: LombokPlan, a, params, ret, add, *, from_type: bool):
    td = c.td
    rname = ret[0].lstrip("=").rsplit(".", 1)[-1]
    bname = _str(a.arg("builderClassName")) or (c.cfg.get("lombok.builder.classname") or "*Builder").replace(
        "*", rname)
    if not re.fullmatch(r"[A-Za-z_$][\w$]*", bname):
        return
    bkey = f"{td.key}.{bname}"
    prefix = _str(a.arg("setterPrefix")) or ""
    tps = td.type_params if from_type or ret == c.self_ref else ()
    bref = ("=" + bkey, tuple((n, (), 0) for n, _ in tps), 0)
    if not any(t.key == bkey for t in plan.types):
        plan.types.append(GenType(bkey, bname, td.key, tps, None, False, "lombok.Builder"))
    add("<init>", (), None, False, "lombok.Builder", bkey)
    fann = c.fann
    for pname, pref in params:
        sing = fann.get(pname, {}).get("lombok.Singular") if from_type else None
        if sing is not None:
            _singular_methods(pname, pref, sing, bref, bkey, add, prefix)
            continue
        mname = prefix + capitalize(pname) if prefix else pname
        add(mname, ((pname, pref),), bref, False, "lombok.Builder", bkey)
    add(_str(a.arg("buildMethodName")) or "build", (), ret, False, "lombok.Builder", bkey)
    add("toString", (), _STR, False, "lombok.Builder", bkey)
    bm = _str(a.arg("builderMethodName"))
    bm = "builder" if bm is None else bm
    if bm and not c.has_method(bm, 0):
        add(bm, (), bref, True, "lombok.Builder")
    if _bool(a.arg("toBuilder"), False) and not c.has_method("toBuilder", 0):
        add("toBuilder", (), bref, False, "lombok.Builder")


def _singular_methods(pname, pref, sing, bref, bkey, add, prefix):
    raw = pref[0]
    simple = raw.rsplit(".", 1)[-1]
    kind = None
    for fqn, v in _COLLECTIONS.items():
        if raw == fqn or simple == fqn.rsplit(".", 1)[-1]:
            kind = v
            break
    one = _str(sing.arg("value")) or _singular(pname)
    if kind is None or one is None:
        add(pname, ((pname, pref),), bref, False, "lombok.Singular", bkey)
        return
    n, plural_t = kind
    targs = list(pref[1]) + [_OBJ] * (n - len(pref[1]))
    targs = [(t[1][0] if t[0] in ("?", "?super") and t[1] else (_OBJ if t[0] in ("?", "?super") else t))
             for t in targs[:n]]
    if n == 1:
        ps = (("el", targs[0]),)
    else:
        ps = (("key", targs[0]), ("value", targs[1]))
    def nm(x):
        return prefix + capitalize(x) if prefix else x
    add(nm(one), ps, bref, False, "lombok.Singular", bkey)
    add(nm(pname), ((pname, ("=" + plural_t, (), 0)),), bref, False, "lombok.Singular", bkey)
    add("clear" + capitalize(pname), (), bref, False, "lombok.Singular", bkey)


def _super_builder(c: _Ctx, plan: LombokPlan, a, params, add):
    """``@SuperBuilder``: ``X.XBuilder<C extends X, B extends XBuilder<C, B>>``
    (abstract; extends the superclass's builder) and ``X.XBuilderImpl``.
    The type variables are modelled by their erasures: field methods return
    ``XBuilder``, ``build()`` returns ``X``."""
    td = c.td
    by = "lombok.experimental.SuperBuilder"
    bname = td.name + "Builder"
    bkey = f"{td.key}.{bname}"
    ikey = bkey + "Impl"
    sup = None
    if td.superclass is not None:
        plan.super_builder_parent = td.superclass[0]
        sup = ("@superbuilder", (), 0)  # resolved by the index (the parent's XBuilder, when it has one)
    plan.types.append(GenType(bkey, bname, td.key, td.type_params, sup, True, by))
    plan.types.append(GenType(ikey, bname + "Impl", td.key, (), ("=" + bkey, (), 0), False, by))
    bref = ("=" + bkey, (), 0)
    xref = ("=" + td.key, (), 0)
    add("<init>", (), None, False, by, bkey)
    for pname, pref in params:
        sing = c.fann.get(pname, {}).get("lombok.Singular")
        if sing is not None:
            _singular_methods(pname, pref, sing, bref, bkey, add, "")
        else:
            add(pname, ((pname, pref),), bref, False, by, bkey)
    add("self", (), bref, False, by, bkey, abstract=True)
    add("build", (), xref, False, by, bkey, abstract=True)
    add("toString", (), _STR, False, by, bkey)
    add("<init>", (), None, False, by, ikey)
    add("self", (), ("=" + ikey, (), 0), False, by, ikey)
    add("build", (), xref, False, by, ikey)
    add("<init>", (("b", bref),), None, False, by)
    bm = _str(a.arg("builderMethodName")) or "builder"
    if not c.has_method(bm, 0):
        add(bm, (), bref, True, by)
    if _bool(a.arg("toBuilder"), False) and not c.has_method("toBuilder", 0):
        add("toBuilder", (), bref, False, by)
