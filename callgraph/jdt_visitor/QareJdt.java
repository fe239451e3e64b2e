/*
 * qare's JDT oracle: parses a project's sources with Eclipse JDT (bindings on)
 * and writes one tab-separated record per method declaration and per call
 * site. Compiled once with the local javac into qare's cache and driven from
 * Python through JPype (callgraph/_jdt.py); JPype cannot subclass ASTVisitor,
 * and walking the AST node by node over JNI is slow, hence this class.
 *
 * Records (fields separated by TAB; no field holds a TAB or a newline):
 *   F  file  problems(error count)
 *   D  file  method-id  start-line  end-line  doc-start  doc-end  flags(body|nobody|implicit[,static][,abstract][,private])
 *      loc (-1: the span end-start+1)
 *   C  file  line  column  enclosing-ids(;-joined)  kind  categories(,-joined)
 *      callee-type  callee-name(as written when there is no binding)  erased-params(,-joined)  static
 *      judge  origin(source|binary)  detail
 * judge: ok | nobinding | recovered | problem | local (callee in a local/anonymous type)
 */
package qare.jdt;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Hashtable;
import java.util.List;

import org.eclipse.jdt.core.compiler.IProblem;
import org.eclipse.jdt.core.dom.*;

public final class QareJdt {
    private QareJdt() {}

    static final java.util.Map<String, Boolean> OVERLOADED = new java.util.HashMap<>();

    /**
     * Parse {@code files} (absolute paths; {@code encodings} parallel) with bindings and
     * write the records to {@code out}. {@code classpath}: jars/folders, a JDK's
     * {@code lib/jrt-fs.jar} among them for its system modules. Returns the number of
     * compilation units written.
     */
    public static int run(String[] files, String[] encodings, String[] classpath, String[] sourcepath,
                          String javaVersion, boolean runningVm, String out) throws IOException {
        ASTParser parser = ASTParser.newParser(AST.getJLSLatest());
        Hashtable<String, String> options = new Hashtable<>();
        options.put("org.eclipse.jdt.core.compiler.compliance", javaVersion);
        options.put("org.eclipse.jdt.core.compiler.source", javaVersion);
        options.put("org.eclipse.jdt.core.compiler.codegen.targetPlatform", javaVersion);
        options.put("org.eclipse.jdt.core.compiler.problem.enablePreviewFeatures", "disabled");
        options.put("org.eclipse.jdt.core.compiler.doc.comment.support", "enabled");
        parser.setCompilerOptions(options);
        OVERLOADED.clear();
        parser.setKind(ASTParser.K_COMPILATION_UNIT);
        parser.setResolveBindings(true);
        parser.setBindingsRecovery(true);
        parser.setStatementsRecovery(true);
        String[] spEnc = new String[sourcepath.length];
        java.util.Arrays.fill(spEnc, "UTF-8");
        parser.setEnvironment(classpath, sourcepath, spEnc, runningVm);
        final int[] count = {0};
        try (BufferedWriter w = new BufferedWriter(new OutputStreamWriter(
                Files.newOutputStream(Paths.get(out)), StandardCharsets.UTF_8))) {
            FileASTRequestor req = new FileASTRequestor() {
                @Override
                public void acceptAST(String sourceFilePath, CompilationUnit cu) {
                    try {
                        new Unit(sourceFilePath, cu, w).write();
                        count[0]++;
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    } catch (RuntimeException | StackOverflowError e) {  // one file's failure costs that file only
                        try {
                            w.write("X\t" + sourceFilePath + "\t" + clean(e.toString()) + "\n");
                        } catch (IOException io) {
                            throw new java.io.UncheckedIOException(io);
                        }
                    }
                }
            };
            // JDT recurses over deep expressions: run it on a thread with a large stack
            final Throwable[] failure = {null};
            Thread t = new Thread(null, () -> {
                try {
                    parser.createASTs(files, encodings, new String[0], req, null);
                } catch (Throwable e) {
                    failure[0] = e;
                }
            }, "qare-jdt", 1L << 30);
            t.start();
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
            if (failure[0] instanceof IOException io) throw io;
            if (failure[0] instanceof java.io.UncheckedIOException u) throw u.getCause();
            if (failure[0] instanceof RuntimeException r) throw r;
            if (failure[0] instanceof Error err) throw err;
            if (failure[0] != null) throw new IOException(failure[0]);
        }
        return count[0];
    }

    static String clean(String s) {
        return s == null ? "" : s.replace('\t', ' ').replace('\n', ' ').replace('\r', ' ');
    }

    /** One compilation unit: its declarations and call sites. */
    static final class Unit extends ASTVisitor {
        final String file;
        final CompilationUnit cu;
        final BufferedWriter w;
        final int[][] problems;

        Unit(String file, CompilationUnit cu, BufferedWriter w) {
            super(false);
            this.file = file;
            this.cu = cu;
            this.w = w;
            List<int[]> ps = new ArrayList<>();
            for (IProblem p : cu.getProblems()) {
                if (p.isError()) ps.add(new int[] {p.getSourceStart(), p.getSourceEnd()});
            }
            this.problems = ps.toArray(new int[0][]);
        }

        void write() throws IOException {
            w.write("F\t" + file + "\t" + problems.length + "\n");
            cu.accept(this);
        }

        int line(int pos) {
            return cu.getLineNumber(pos);
        }

        void emit(String s) {
            try {
                w.write(s);
                w.write('\n');
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        // ---- identifiers -------------------------------------------------------

        static String typeName(ITypeBinding t) {
            if (t == null) return "?";
            ITypeBinding e = t.getErasure();
            if (e.isArray()) return typeName(e.getElementType()) + "[]".repeat(e.getDimensions());
            String q = e.getQualifiedName();
            return q.isEmpty() ? "?" + e.getName() : q;
        }

        static String params(IMethodBinding m) {
            ITypeBinding[] ps = m.getMethodDeclaration().getParameterTypes();
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < ps.length; i++) {
                if (i > 0) sb.append(',');
                String n = typeName(ps[i]);
                if (i == ps.length - 1 && m.isVarargs() && n.endsWith("[]")) n = n.substring(0, n.length() - 2) + "...";
                sb.append(n);
            }
            return sb.toString();
        }

        static String methodId(IMethodBinding m) {
            return typeName(m.getDeclaringClass()) + "." + (m.isConstructor() ? "<init>" : m.getName())
                    + "(" + params(m) + ")";
        }

        /** The id of a declaration; a parameter type JDT could only recover (its jar is
         *  missing) is named as qare does: through a single-type import, else as written. */
        String declId(MethodDeclaration md, IMethodBinding b) {
            ITypeBinding[] ps = b.getParameterTypes();
            boolean recovered = false;
            for (ITypeBinding p : ps) recovered |= p.isRecovered() || (p.isArray() && p.getElementType().isRecovered());
            if (!recovered || ps.length != md.parameters().size()) return methodId(b);
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < ps.length; i++) {
                SingleVariableDeclaration v = (SingleVariableDeclaration) md.parameters().get(i);
                String n;
                ITypeBinding el = ps[i].isArray() ? ps[i].getElementType() : ps[i];
                if (el.isRecovered()) {
                    Type t = v.getType();
                    while (t instanceof ArrayType at) t = at.getElementType();
                    if (t instanceof ParameterizedType pt) t = pt.getType();
                    String written = t.toString();
                    n = written;
                    for (Object o : cu.imports()) {
                        ImportDeclaration im = (ImportDeclaration) o;
                        String q = im.getName().getFullyQualifiedName();
                        if (!im.isOnDemand() && !im.isStatic() && q.endsWith("." + written)) n = q;
                    }
                    int dims = (ps[i].isArray() ? ps[i].getDimensions() : 0);
                    n = n + "[]".repeat(dims);
                } else {
                    n = typeName(ps[i]);
                }
                if (i == ps.length - 1 && b.isVarargs() && n.endsWith("[]")) n = n.substring(0, n.length() - 2) + "...";
                sb.append(i > 0 ? "," : "").append(n);
            }
            return typeName(b.getDeclaringClass()) + "." + (b.isConstructor() ? "<init>" : b.getName()) + "(" + sb + ")";
        }

        static boolean isLocal(ITypeBinding t) {
            for (ITypeBinding c = t; c != null; c = c.getDeclaringClass()) {
                if (c.isLocal() || c.isAnonymous()) return true;
            }
            return false;
        }

        /** Start of a declaration without its doc comment: first modifier/annotation, else the node. */
        static int declStart(BodyDeclaration d) {
            if (d.getJavadoc() == null) return d.getStartPosition();
            @SuppressWarnings("unchecked")
            List<ASTNode> mods = d.modifiers();
            if (!mods.isEmpty()) return mods.get(0).getStartPosition();
            if (d instanceof MethodDeclaration md) {
                if (!md.typeParameters().isEmpty()) return ((ASTNode) md.typeParameters().get(0)).getStartPosition();
                if (md.getReturnType2() != null) return md.getReturnType2().getStartPosition();
                return md.getName().getStartPosition();
            }
            if (d instanceof AbstractTypeDeclaration td) return td.getName().getStartPosition();
            Javadoc j = d.getJavadoc();
            return j.getStartPosition() + j.getLength();
        }

        // ---- enclosing method (qare's attribution rules) ------------------------

        static final class Ctx {
            List<String> ids = new ArrayList<>();
            boolean lambda, anonymous;
        }

        static List<String> ctorIds(AbstractTypeDeclaration td) {
            List<String> ids = new ArrayList<>();
            ITypeBinding tb = td.resolveBinding();
            if (tb == null) return ids;
            for (Object o : td.bodyDeclarations()) {
                if (o instanceof MethodDeclaration md && md.isConstructor() && md.resolveBinding() != null)
                    ids.add(methodId(md.resolveBinding()));
            }
            if (ids.isEmpty()) {
                for (IMethodBinding m : tb.getDeclaredMethods()) {  // implicit (default/canonical) constructor
                    if (m.isConstructor()) ids.add(methodId(m));
                }
            }
            return ids;
        }

        static String clinit(ASTNode typeNode) {
            ITypeBinding tb = typeNode instanceof AbstractTypeDeclaration td ? td.resolveBinding() : null;
            return tb == null ? null : typeName(tb) + ".<clinit>()";
        }

        static boolean localType(ASTNode typeNode) {
            if (typeNode instanceof AnonymousClassDeclaration) return true;
            if (typeNode instanceof AbstractTypeDeclaration td) {
                if (td.getParent() instanceof TypeDeclarationStatement) return true;
                ITypeBinding b = td.resolveBinding();
                return b != null && isLocal(b);
            }
            return false;
        }

        static Ctx context(ASTNode n) {
            Ctx c = new Ctx();
            ASTNode prev = n;
            for (ASTNode p = n.getParent(); p != null; prev = p, p = p.getParent()) {
                if (p instanceof LambdaExpression) c.lambda = true;
                else if (p instanceof AnonymousClassDeclaration) c.anonymous = true;
                else if (p instanceof MethodDeclaration md) {
                    if (localType(md.getParent())) continue;
                    IMethodBinding b = md.resolveBinding();
                    if (b != null) c.ids.add(methodId(b));
                    return c;
                } else if (p instanceof Initializer init) {
                    if (localType(init.getParent())) continue;
                    if (Modifier.isStatic(init.getModifiers())) add(c, clinit(init.getParent()));
                    else if (init.getParent() instanceof AbstractTypeDeclaration td) c.ids.addAll(ctorIds(td));
                    return c;
                } else if (p instanceof FieldDeclaration fd) {
                    if (localType(fd.getParent())) continue;
                    boolean iface = fd.getParent() instanceof TypeDeclaration td && td.isInterface();
                    if (iface || Modifier.isStatic(fd.getModifiers())) add(c, clinit(fd.getParent()));
                    else if (fd.getParent() instanceof AbstractTypeDeclaration td) c.ids.addAll(ctorIds(td));
                    return c;
                } else if (p instanceof EnumConstantDeclaration ec) {
                    if (localType(ec.getParent())) continue;
                    add(c, clinit(ec.getParent()));
                    return c;
                } else if (p instanceof AbstractTypeDeclaration td && !localType(td)) {
                    return c;  // an annotation value or a record header: no method
                }
            }
            return c;
        }

        static void add(Ctx c, String id) {
            if (id != null) c.ids.add(id);
        }

        // ---- declarations --------------------------------------------------------

        @Override
        public boolean visit(MethodDeclaration md) {
            IMethodBinding b = md.resolveBinding();
            if (b != null && !localType(md.getParent())) {
                Javadoc j = md.getJavadoc();
                int start = declStart(md);
                int end = md.getStartPosition() + md.getLength() - 1;
                emit("D\t" + file + "\t" + declId(md, b) + "\t" + line(start) + "\t" + line(end) + "\t"
                        + (j == null ? -1 : j.getStartPosition()) + "\t"
                        + (j == null ? -1 : j.getStartPosition() + j.getLength()) + "\t"
                        + flags(b, md.getBody() == null ? "nobody" : "body") + "\t-1");
                if (md.isConstructor()) implicitSuper(md, b);
            }
            return true;
        }

        static String flags(IMethodBinding b, String first) {
            int m = b.getModifiers();
            return first + (Modifier.isStatic(m) ? ",static" : "") + (Modifier.isAbstract(m) ? ",abstract" : "")
                    + (Modifier.isPrivate(m) ? ",private" : "");
        }

        /** Members the compiler adds (default/canonical constructor, record accessors, enum
         *  values/valueOf) and {@code <clinit>()} when the type runs static initialization.
         *  Their lines and LOC follow qare's rules: the implicit constructor spans the instance
         *  initializers, {@code <clinit>()} the static ones; LOC is the sum of their spans. */
        void implicitMembers(AbstractTypeDeclaration td) {
            ITypeBinding tb = td.resolveBinding();
            if (tb == null || localType(td)) return;
            boolean iface = td instanceof TypeDeclaration t0 && t0.isInterface();
            List<ASTNode> inst = new ArrayList<>(), stat = new ArrayList<>();
            if (td instanceof EnumDeclaration ed) {
                for (Object o : ed.enumConstants()) stat.add((ASTNode) o);
            }
            for (Object o : td.bodyDeclarations()) {
                if (o instanceof Initializer i) {
                    (Modifier.isStatic(i.getModifiers()) ? stat : inst).add(i);
                } else if (o instanceof FieldDeclaration fd) {
                    boolean init = false;
                    for (Object f : fd.fragments()) init |= ((VariableDeclarationFragment) f).getInitializer() != null;
                    if (init) (iface || Modifier.isStatic(fd.getModifiers()) ? stat : inst).add(fd);
                }
            }
            int start = declStart(td);
            boolean record = td instanceof RecordDeclaration;
            for (IMethodBinding m : tb.getDeclaredMethods()) {
                if (cu.findDeclaringNode(m) != null || m.isSynthetic()) continue;
                if (record && !m.isConstructor() && m.getParameterTypes().length <= 1
                        && (m.getName().equals("equals") || m.getName().equals("hashCode")
                            || m.getName().equals("toString")))
                    continue;  // java.lang.Record's members: JDK APIs in qare, not nodes
                boolean dflt = m.isConstructor() && !record && m.getParameterTypes().length == 0;
                if (dflt && !inst.isEmpty()) {
                    emitSpan(methodId(m), inst, flags(m, "implicit"));
                } else {
                    emit("D\t" + file + "\t" + methodId(m) + "\t" + line(start) + "\t" + line(start)
                            + "\t-1\t-1\t" + flags(m, "implicit") + "\t0");
                }
                if (dflt && td instanceof TypeDeclaration t && !t.isInterface())
                    superCall(td, tb, List.of(methodId(m)), line(start));
            }
            if (!stat.isEmpty()) emitSpan(typeName(tb) + ".<clinit>()", stat, "implicit,static");
        }

        void emitSpan(String id, List<ASTNode> members, String flags) {
            int loc = 0;
            for (ASTNode n : members) {
                int s = n instanceof BodyDeclaration bd ? declStart(bd) : n.getStartPosition();
                loc += line(n.getStartPosition() + n.getLength() - 1) - line(s) + 1;
            }
            ASTNode a = members.get(0), b = members.get(members.size() - 1);
            int s = a instanceof BodyDeclaration bd ? declStart(bd) : a.getStartPosition();
            emit("D\t" + file + "\t" + id + "\t" + line(s) + "\t" + line(b.getStartPosition() + b.getLength() - 1)
                    + "\t-1\t-1\t" + flags + "\t" + loc);
        }

        @Override
        public boolean visit(TypeDeclaration td) {
            implicitMembers(td);
            return true;
        }

        @Override
        public boolean visit(EnumDeclaration td) {
            implicitMembers(td);
            return true;
        }

        @Override
        public boolean visit(RecordDeclaration td) {
            implicitMembers(td);
            return true;
        }

        @Override
        public boolean visit(AnnotationTypeDeclaration td) {
            return true;
        }

        void implicitSuper(MethodDeclaration md, IMethodBinding b) {
            if (md.getBody() != null) {
                List<?> st = md.getBody().statements();
                if (!st.isEmpty() && (st.get(0) instanceof ConstructorInvocation
                        || st.get(0) instanceof SuperConstructorInvocation)) return;
            }
            if (!(md.getParent() instanceof TypeDeclaration td) || td.isInterface()) return;
            superCall(td, b.getDeclaringClass(), List.of(methodId(b)), line(declStart(md)));
        }

        void superCall(ASTNode at, ITypeBinding tb, List<String> enclosing, int line) {
            ITypeBinding sup = tb.getSuperclass();
            if (sup == null || "java.lang.Object".equals(sup.getErasure().getQualifiedName())) return;
            for (IMethodBinding m : sup.getErasure().getDeclaredMethods()) {
                if (m.isConstructor() && m.getParameterTypes().length == 0) {
                    call(at, line, 0, enclosing, "implicit-super", "super", m, "ok", "");
                    return;
                }
            }
        }

        // ---- call sites ------------------------------------------------------------

        String judge(ASTNode n, IMethodBinding m) {
            if (m == null) return "nobinding";
            if (m.isRecovered() || m.getDeclaringClass() == null || m.getDeclaringClass().isRecovered())
                return "recovered";
            // `new T<>() {...}` in an argument of a call JDT could not bind: inference never
            // ran, and the DOM answers with its synthetic diamond factory, not a constructor
            if (n instanceof ClassInstanceCreation && !m.isConstructor()) return "recovered";
            for (ITypeBinding p : m.getParameterTypes()) if (p.isRecovered()) return "recovered";
            int s = n.getStartPosition(), e = s + n.getLength() - 1;
            for (int[] p : problems) if (p[0] <= e && p[1] >= s) return "problem";
            if (isLocal(m.getDeclaringClass())) return "local";
            return "ok";
        }

        void call(ASTNode n, int line, int col, List<String> enclosing, String kind, String cats,
                  IMethodBinding m, String judge, String detail) {
            String type = "", name = writtenName(n), ps = "", stat = "", origin = "";
            if (m != null) {
                ITypeBinding dc = m.getDeclaringClass();
                type = dc == null ? "?" : typeName(dc);
                name = m.isConstructor() || n instanceof ClassInstanceCreation ? "<init>" : m.getName();
                ps = params(m);
                stat = Modifier.isStatic(m.getModifiers()) ? "static" : "";
                origin = dc != null && dc.isFromSource() ? "source" : "binary";
            }
            emit("C\t" + file + "\t" + line + "\t" + col + "\t" + String.join(";", enclosing) + "\t" + kind
                    + "\t" + cats + "\t" + type + "\t" + name + "\t" + ps + "\t" + stat + "\t" + judge + "\t"
                    + origin + "\t" + clean(detail));
        }

        /** The method name as written: lets a call without binding still be matched by name. */
        static String writtenName(ASTNode n) {
            if (n instanceof MethodInvocation mi) return mi.getName().getIdentifier();
            if (n instanceof SuperMethodInvocation smi) return smi.getName().getIdentifier();
            if (n instanceof ExpressionMethodReference r) return r.getName().getIdentifier();
            if (n instanceof TypeMethodReference r) return r.getName().getIdentifier();
            if (n instanceof SuperMethodReference r) return r.getName().getIdentifier();
            return "<init>";  // creations, this(...)/super(...), enum constants, Type::new
        }

        void site(ASTNode n, ASTNode at, String kind, IMethodBinding m, List<String> cats) {
            Ctx c = context(n);
            if (c.lambda) cats.add("lambda_body");
            if (c.anonymous) cats.add("anonymous_body");
            if (m != null && m.getDeclaringClass() != null && overloaded(m)) cats.add("overload");
            int pos = at.getStartPosition();
            call(n, line(pos), cu.getColumnNumber(pos) + 1, c.ids, kind, String.join(",", cats), m, judge(n, m), "");
        }

        /** More than one method of this name (constructors: more than one constructor)
         *  declared in the callee's type; cached per type and name for the run. */
        static boolean overloaded(IMethodBinding m) {
            ITypeBinding dc = m.getDeclaringClass().getErasure();
            String name = m.isConstructor() ? "<init>" : m.getName();
            return OVERLOADED.computeIfAbsent(dc.getKey() + "#" + name, k -> {
                int same = 0;
                for (IMethodBinding o : dc.getDeclaredMethods())
                    if (o.isConstructor() == m.isConstructor() && (m.isConstructor() || o.getName().equals(name))) same++;
                return same > 1;
            });
        }

        static boolean substituted(IMethodBinding b) {
            if (b == null) return false;
            ITypeBinding inst = b.getReturnType(), decl = b.getMethodDeclaration().getReturnType();
            return inst != null && decl != null && !inst.getErasure().isEqualTo(decl.getErasure());
        }

        void receiver(Expression e, IMethodBinding m, List<String> cats) {
            if (e == null) {
                cats.add("unqualified");
                return;
            }
            while (e instanceof ParenthesizedExpression pe) e = pe.getExpression();
            ITypeBinding rt = null;
            if (e instanceof Name nm) {
                IBinding b = nm.resolveBinding();
                if (b instanceof IVariableBinding v) {
                    cats.add(v.isField() ? "field_receiver" : v.isParameter() ? "parameter_receiver" : "local_receiver");
                    rt = v.getType();
                } else if (b instanceof ITypeBinding t) {
                    cats.add("type_receiver");
                    rt = t;
                }
            } else if (e instanceof FieldAccess || e instanceof SuperFieldAccess) {
                cats.add("field_receiver");
            } else if (e instanceof MethodInvocation mi) {
                cats.add("chained");
                if (substituted(mi.resolveMethodBinding())) cats.add("generic_return");
            } else if (e instanceof SuperMethodInvocation smi) {
                cats.add("chained");
                if (substituted(smi.resolveMethodBinding())) cats.add("generic_return");
            } else if (e instanceof ThisExpression) {
                cats.add("this_receiver");
            } else {
                cats.add("expression_receiver");
            }
            if (rt == null) rt = e.resolveTypeBinding();
            if (m != null && rt != null && m.getDeclaringClass() != null && !rt.isArray()
                    && !rt.getErasure().isEqualTo(m.getDeclaringClass().getErasure()))
                cats.add("inherited");
        }

        static List<String> cats() {
            return new ArrayList<>();
        }

        @Override
        public boolean visit(MethodInvocation n) {
            IMethodBinding m = n.resolveMethodBinding();
            List<String> c = cats();
            if (m != null && Modifier.isStatic(m.getModifiers())) c.add("static");
            receiver(n.getExpression(), m, c);
            site(n, n.getName(), "call", m, c);
            return true;
        }

        @Override
        public boolean visit(SuperMethodInvocation n) {
            List<String> c = cats();
            c.add("super");
            site(n, n.getName(), "super-call", n.resolveMethodBinding(), c);
            return true;
        }

        @Override
        public boolean visit(ClassInstanceCreation n) {
            IMethodBinding m = n.resolveConstructorBinding();
            List<String> c = cats();
            c.add("constructor");
            if (m != null && m.getDeclaringClass() != null && m.getDeclaringClass().isAnonymous()) {
                ITypeBinding anon = m.getDeclaringClass();
                ITypeBinding sup = anon.getSuperclass();
                if (anon.getInterfaces().length > 0 && (sup == null
                        || "java.lang.Object".equals(sup.getErasure().getQualifiedName()))) {
                    return true;  // new Interface() { ... }: no constructor of the interface runs
                }
                IMethodBinding superCtor = null;
                if (sup != null) {
                    for (IMethodBinding o : sup.getErasure().getDeclaredMethods())
                        if (o.isConstructor() && params(o).equals(params(m))) superCtor = o;
                }
                c.add("anonymous_class");
                if (superCtor != null) m = superCtor;
            }
            site(n, n, "new", m, c);
            return true;
        }

        @Override
        public boolean visit(ConstructorInvocation n) {
            List<String> c = cats();
            c.add("constructor");
            site(n, n, "this-call", n.resolveConstructorBinding(), c);
            return true;
        }

        @Override
        public boolean visit(SuperConstructorInvocation n) {
            List<String> c = cats();
            c.add("super");
            site(n, n, "super-ctor", n.resolveConstructorBinding(), c);
            return true;
        }

        @Override
        public boolean visit(EnumConstantDeclaration n) {
            List<String> c = cats();
            c.add("constructor");
            site(n, n.getName(), "enum-constant", n.resolveConstructorBinding(), c);
            return true;
        }

        boolean ref(MethodReference n, String kind) {
            List<String> c = cats();
            c.add("method_ref");
            IMethodBinding m = n.resolveMethodBinding();
            if (n instanceof CreationReference cr && cr.getType().isArrayType()) return true;
            if (n instanceof SuperMethodReference) c.add("super");
            site(n, n, kind, m, c);
            return true;
        }

        @Override
        public boolean visit(ExpressionMethodReference n) {
            return ref(n, "ref");
        }

        @Override
        public boolean visit(TypeMethodReference n) {
            return ref(n, "ref");
        }

        @Override
        public boolean visit(SuperMethodReference n) {
            return ref(n, "ref");
        }

        @Override
        public boolean visit(CreationReference n) {
            return ref(n, "ref");
        }
    }
}
