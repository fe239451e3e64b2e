"""``ProjectIndex``'s type names: the classpath behind the project
(``lib``, ``third_party``) and type-name resolution in a file's scope (JLS
§6.5.5: enclosing and inherited member types, single-type imports, the
package, on-demand imports, ``java.lang``), memoised per (name, file, type).

A mixin: it reads the tables ``ProjectIndex.__init__`` builds (``types``,
``members``, ``pkg_types``, ``files``, ...) and the supertype walk of
``_index_hierarchy``."""

from __future__ import annotations


class NameResolution:
    """Type names of :class:`callgraph._index.ProjectIndex` (mixin)."""

    # ----------------------------------------------------------- classpath
    def lib(self, fqn: str):
        """TypeSig of a library type, or None (memoised)."""
        try:
            return self._lib[fqn]
        except KeyError:
            pass
        sig = self._lib[fqn] = self.cp.lookup(fqn) if self.cp is not None else None  # lookup never raises
        return sig

    def lib_has(self, fqn: str) -> bool:
        """Whether the classpath has a class file for source FQN ``fqn`` (memoised:
        name resolution asks the same few names from every file, and each ask
        tries every split of the name into package and nested classes)."""
        try:
            return self._has[fqn]
        except KeyError:
            pass
        r = self._has[fqn] = self.cp is not None and self.cp.has_type(fqn)
        return r

    def third_party(self, fqn: str) -> bool:
        """True unless the type is a JDK type (decided by the JDK's own package list;
        with no JDK at all, only the platform-reserved ``java.`` packages count as JDK)."""
        r = self._third.get(fqn)
        if r is None:
            if not self.has_jdk:
                r = not fqn.startswith("java.")
            else:  # a JDK is indexed, so there is a classpath index
                from .classpath import is_third_party

                sig = self.lib(fqn)
                r = sig.origin != "jdk" if sig is not None else is_third_party(fqn, self.cp)
            self._third[fqn] = r
        return r

    def library_of(self, fqn: str):
        sig = self.lib(fqn)
        return getattr(sig, "library", None) if sig is not None else None

    # ----------------------------------------------------------- type names
    def _file_of(self, key: str | None, fi: int) -> int:
        return self.type_file.get(key, fi) if key else fi

    def resolve_name(self, name: str, fi: int, key: str | None) -> str | None:
        """Source FQN (or project key) of a type name used in file ``fi`` inside type ``key``."""
        mk = (name, fi, key)
        try:
            return self._name_memo[mk]
        except KeyError:
            pass
        self._name_memo[mk] = None  # cycle guard
        r = self._resolve_name(name, fi, key)
        self._name_memo[mk] = r
        return r

    def _resolve_name(self, name: str, fi: int, key: str | None) -> str | None:
        if name.startswith("="):
            return name[1:]
        parts = name.split(".")
        head = self._resolve_simple(parts[0], fi, key)
        if head is not None:
            cur = self._member_path(head, parts[1:])
            if cur is not None:
                return cur
        # a qualified name: find the shortest prefix that is a type
        for i in range(1, len(parts) + 1):
            pre = ".".join(parts[:i])
            if i >= 2 or len(parts) == 1:
                if pre in self.types and not self.types[pre].local or (i >= 2 and self.lib_has(pre)):
                    cur = self._member_path(pre, parts[i:])
                    if cur is not None:
                        return cur
        # An unknown library type written fully qualified (no classpath for it):
        # Java naming conventions separate the package (lower case) from the
        # type names (upper case).
        if len(parts) >= 2 and parts[0][:1].islower():
            i = next((j for j, p in enumerate(parts) if p[:1].isupper()), None)
            if i is not None and i >= 1 and all(p[:1].isupper() for p in parts[i:]):
                return name
        return None

    def member_type(self, owner: str, name: str, _seen=None, _inherited=False):
        """Member type ``name`` of ``owner`` or inherited from its supertypes
        (JLS 8.5: private member types are not inherited, and a type's own
        member hides the ones it would inherit). Source FQN or None."""
        m = self.members.get(owner)
        if m and name in m:
            key = m[name]
            if _inherited and self.types[key].private:
                return None  # hidden here, and not inherited
            return key
        v = self.solver.view(owner)
        if v is None or not v.is_source:
            cand = f"{owner}.{name}"
            if v is not None and cand in v.sig.nested:
                return cand
            if self.lib_has(cand):
                return cand
        seen = _seen or set()
        seen.add(owner)
        for s in self.supers(owner):
            if s not in seen:
                r = self.member_type(s, name, seen, True)
                if r is not None:
                    return r
        return None

    def _resolve_simple(self, n: str, fi: int, key: str | None) -> str | None:
        ff = self.files[fi]
        t = key
        while t is not None:
            td = self.types.get(t)
            if td is None:
                break
            if td.name == n and not td.anonymous:
                return t
            if t in self._supers or not td.local:
                r = self.member_type(t, n)
                if r is not None:
                    return r
            lt = self.local_types.get(t)
            if lt and n in lt:
                return lt[n]
            t = td.outer
        for imp in ff.imports:
            if not imp.on_demand and imp.name.endswith(n) and (
                    len(imp.name) == len(n) or imp.name[-len(n) - 1] == "."):
                if imp.static:
                    owner = self._resolve_qualified(imp.name[: -len(n) - 1])
                    if owner:
                        r = self.member_type(owner, n)
                        if r:
                            return r
                    continue
                return self._resolve_qualified(imp.name) or imp.name
        pt = self.pkg_types.get(ff.package)
        if pt and n in pt:
            return pt[n]
        same = f"{ff.package}.{n}" if ff.package else n
        if self.lib_has(same):
            return same
        for imp in ff.imports:
            if imp.on_demand:
                pt = self.pkg_types.get(imp.name)
                if pt and n in pt:
                    return pt[n]
                owner = imp.name if imp.name in self.types else None
                if owner is None and self.lib_has(imp.name):
                    owner = imp.name
                if owner is not None:
                    r = self.member_type(owner, n)
                    if r:
                        return r
                elif not imp.static and self.lib_has(f"{imp.name}.{n}"):
                    return f"{imp.name}.{n}"
        pt = self.pkg_types.get("java.lang")
        if pt and n in pt:
            return pt[n]
        if self.lib_has("java.lang." + n):
            return "java.lang." + n
        if not self.has_jdk and n[:1].isupper() and not any(
                imp.on_demand and not imp.static and imp.name not in self.pkg_types for imp in ff.imports):
            # No JDK to ask: in a compilable file a type name found neither in
            # scope, nor imported, nor in the package can only be java.lang's.
            return "java.lang." + n
        return None

    def _resolve_qualified(self, name: str) -> str | None:
        if name in self.types:
            return name
        parts = name.split(".")
        for i in range(1, len(parts) + 1):
            pre = ".".join(parts[:i])
            if pre in self.types or self.lib_has(pre):
                cur = self._member_path(pre, parts[i:])
                if cur is not None:
                    return cur
        return None

    def _member_path(self, owner: str, names) -> str | None:
        """The member type reached from ``owner`` through the simple ``names`` in turn (None if one is missing)."""
        for n in names:
            owner = self.member_type(owner, n)
            if owner is None:
                return None
        return owner
