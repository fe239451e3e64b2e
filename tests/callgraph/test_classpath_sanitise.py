"""The sanitised pom model without Maven: repositories and machine-property references
(callgraph._mvn_resolve.sanitise; docs/security.md "Maven resolution never runs a project's code")."""

from __future__ import annotations

from lxml import etree

from callgraph._mvn_resolve import sanitise

NS = "http://maven.apache.org/POM/4.0.0"


def _sanitised(body: str):
    el = etree.fromstring(f'<project xmlns="{NS}"><modelVersion>4.0.0</modelVersion>'
                          f"<groupId>g</groupId><artifactId>a</artifactId><version>1</version>{body}</project>")
    warnings: list = []
    tree, _props = sanitise(el, "pom.xml", warnings)
    return tree, [w[1] for w in warnings]


def _urls(tree) -> list[str]:
    return [u.text for u in tree.iter("url")]


def test_plain_http_repositories_never_reach_the_sanitised_pom():
    tree, warnings = _sanitised(
        "<repositories>"
        "<repository><id>sec</id><url>https://repo.example.org/maven2</url></repository>"
        "<repository><id>plain</id><url>http://repo.example.org/maven2</url></repository>"
        "<repository><id>upper</id><url>HTTP://repo.example.org/x</url></repository>"
        "<repository><id>file</id><url>file:///etc</url></repository>"
        "</repositories>"
        "<profiles><profile><id>p</id><activation><activeByDefault>true</activeByDefault></activation>"
        "<repositories><repository><id>inprofile</id><url>http://in.profile/repo</url></repository></repositories>"
        "</profile></profiles>")
    assert _urls(tree) == ["https://repo.example.org/maven2"]
    assert sum("plain http" in w for w in warnings) == 3        # plain, upper, inprofile
    assert any("repository file refused" in w for w in warnings)
    assert b"http://repo" not in etree.tostring(tree) and b"http://in.profile" not in etree.tostring(tree)


def test_system_properties_of_the_machine_are_refused():
    tree, warnings = _sanitised(
        "<properties><home>${user.home}/x</home><java.version>17</java.version>"
        "<rel>${java.version}</rel><os>${os.name}</os><ok>${project.version}</ok></properties>"
        "<dependencies>"
        "<dependency><groupId>x</groupId><artifactId>b</artifactId><version>1</version>"
        "<classifier>${user.name}</classifier></dependency>"
        "<dependency><groupId>x</groupId><artifactId>c</artifactId><version>1</version>"
        "<type>${t}</type></dependency>"
        "<dependency><groupId>x</groupId><artifactId>d</artifactId><version>${java.version}</version></dependency>"
        "</dependencies>"
        "<repositories><repository><id>r</id><url>https://repo.example.org/${user.name}</url></repository>"
        "</repositories>")
    text = etree.tostring(tree).decode()
    for leak in ("user.home", "user.name", "os.name"):
        assert leak not in text
    assert "<rel>${java.version}</rel>" in text.replace(f' xmlns="{NS}"', "")   # the pom defines java.version
    assert "<version>${java.version}</version>" in text                       # … so this is its own value
    assert "${project.version}" in text
    assert any("property home refused" in w and "'user.home'" in w for w in warnings)
    assert any("property os refused" in w and "'os.name'" in w for w in warnings)
    assert any("classifier" in w and "'user.name'" in w for w in warnings)
    assert any("repository r refused" in w for w in warnings)                  # ${…} in a URL: refused already
    assert not any("java.version" in w for w in warnings)


def test_a_system_property_through_a_property_is_refused():
    tree, warnings = _sanitised(
        "<properties><h>${java.home}</h><indirect>${h}</indirect></properties>"
        "<dependencies><dependency><groupId>x</groupId><artifactId>b</artifactId><version>1</version>"
        "<classifier>${indirect}</classifier></dependency></dependencies>")
    assert tree.find(f".//classifier") is None and "java.home" not in etree.tostring(tree).decode()
    assert any("classifier" in w and "java.home" in w for w in warnings)


def test_a_value_naming_a_refused_property_is_dropped_too():
    """``<type>${x}</type>`` with ``x`` refused would reach Maven as the literal type ``${x}``
    (an artifact that exists nowhere) and fail the whole module."""
    tree, warnings = _sanitised(
        "<properties><x>${settings.localRepository}</x><ok>jar</ok></properties>"
        "<dependencies><dependency><groupId>x</groupId><artifactId>b</artifactId><version>1</version>"
        "<type>${x}</type></dependency>"
        "<dependency><groupId>x</groupId><artifactId>c</artifactId><version>1</version>"
        "<type>${ok}</type></dependency></dependencies>")
    types = [t.text for t in tree.iter("type")]
    assert types == ["${ok}"]
    assert any("dependencies/dependency/type dropped" in w and "refused property x" in w for w in warnings)


def _profile(pid: str, activation: str) -> str:
    return (f"<profile><id>{pid}</id><activation>{activation}</activation>"
            f"<dependencies><dependency><groupId>x</groupId><artifactId>{pid}</artifactId>"
            "<version>1</version></dependency></dependencies></profile>")


def test_profiles_maven_activates_by_itself_are_kept_and_only_those():
    # Maven activates a profile whose only condition is the running JDK's version (commons-text
    # takes its Mockito from one); a condition on the OS, a property or a file depends on the
    # machine or the command line, and all conditions must hold: such a profile is left out
    tree, _ = _sanitised(
        "<profiles>"
        + _profile("bydefault", "<activeByDefault>true</activeByDefault>")
        + _profile("jdk11to22", "<jdk>[11,22)</jdk>")
        + _profile("notjdk8", "<jdk>!1.8</jdk>")
        + _profile("jdkandfile", "<jdk>[11,)</jdk><file><exists>/etc/passwd</exists></file>")
        + _profile("jdkandprop", "<jdk>[11,)</jdk><property><name>ci</name></property>")
        + _profile("os", "<os><family>unix</family></os>")
        + _profile("none", "")
        + _profile("jdkexpr", "<jdk>${jdk.range}</jdk>")
        + "</profiles>")
    kept = [p.findtext("id") for p in tree.iter("profile")]
    assert kept == ["bydefault", "jdk11to22", "notjdk8"]
    assert [a.findtext("jdk") for a in tree.iter("activation")] == [None, "[11,22)", "!1.8"]
    assert b"/etc/passwd" not in etree.tostring(tree)
