package org.example.textkit.internal;

// Internal helper: deliberately left without a doc comment, so a dataset
// built with --require-docs drops the methods that reach it.
public final class Digests {

    private Digests() {
    }

    public static String hex(String text) {
        return Integer.toHexString(text.hashCode());
    }
}
