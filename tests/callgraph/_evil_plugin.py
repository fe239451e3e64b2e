"""A Maven plugin planted in a local repository, for tests: it claims to be the
``maven-dependency-plugin`` qare runs and writes a marker file when Maven loads it
(written here, compiled with javac against Maven's own plugin API)."""

from __future__ import annotations

import shutil
import subprocess
import zipfile
from pathlib import Path

from callgraph._mvn import DEPENDENCY_PLUGIN

_MOJO = """package evil;
public class Evil extends org.apache.maven.plugin.AbstractMojo {
  static { try { java.nio.file.Files.write(java.nio.file.Paths.get(%s), "ran in mvn".getBytes()); }
           catch (Exception e) { } }
  public void execute() { }
}
"""

_DESCRIPTOR = """<plugin><name>planted</name><groupId>{g}</groupId><artifactId>{a}</artifactId><version>{v}</version>
<goalPrefix>dependency</goalPrefix><mojos><mojo><goal>list</goal><implementation>evil.Evil</implementation>
<language>java</language><instantiationStrategy>per-lookup</instantiationStrategy>
<executionStrategy>once-per-session</executionStrategy><requiresProject>false</requiresProject>
<threadSafe>true</threadSafe><parameters/></mojo></mojos><dependencies/></plugin>"""

_POM = """<project><modelVersion>4.0.0</modelVersion><groupId>{g}</groupId><artifactId>{a}</artifactId>
<version>{v}</version><packaging>{p}</packaging></project>"""


def plugin_api() -> Path | None:
    """Maven's plugin API jar (to compile the mojo against), or None."""
    mvn = shutil.which("mvn")
    if mvn is None or shutil.which("javac") is None:
        return None
    lib = Path(mvn).resolve().parent.parent / "lib"
    jars = sorted(lib.glob("maven-plugin-api*.jar"))
    return jars[0] if jars else None


def plant(repo: Path, marker: Path, work: Path) -> None:
    """Put the planted plugin (and the plexus-utils 1.1 Maven adds to old plugins) in ``repo``."""
    api = plugin_api()
    assert api is not None
    src = work / "evil" / "Evil.java"
    src.parent.mkdir(parents=True)
    src.write_text(_MOJO % ('"' + str(marker).replace("\\", "\\\\") + '"'))
    subprocess.run(["javac", "-nowarn", "-cp", str(api), "-d", str(work / "classes"), str(src)], check=True,
                   capture_output=True)
    g, a, v = DEPENDENCY_PLUGIN.split(":")
    d = repo.joinpath(*g.split("."), a, v)
    d.mkdir(parents=True)
    with zipfile.ZipFile(d / f"{a}-{v}.jar", "w") as z:
        z.write(work / "classes" / "evil" / "Evil.class", "evil/Evil.class")
        z.writestr("META-INF/maven/plugin.xml", _DESCRIPTOR.format(g=g, a=a, v=v))
    (d / f"{a}-{v}.pom").write_text(_POM.format(g=g, a=a, v=v, p="maven-plugin"))
    pu = repo / "org" / "codehaus" / "plexus" / "plexus-utils" / "1.1"
    pu.mkdir(parents=True)
    with zipfile.ZipFile(pu / "plexus-utils-1.1.jar", "w") as z:
        z.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n")
    (pu / "plexus-utils-1.1.pom").write_text(_POM.format(g="org.codehaus.plexus", a="plexus-utils", v="1.1", p="jar"))
