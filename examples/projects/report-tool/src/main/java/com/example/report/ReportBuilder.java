package com.example.report;

import java.util.List;

import org.example.textkit.Texts;
import org.example.textkit.internal.Digests;

/** Builds short plain-text reports. */
public class ReportBuilder {

    /** Builds a one-line report listing the given words. */
    public String line(List<String> words) {
        return Texts.join(words, ", ");
    }

    /**
     * Builds a headline: the cleaned title, shortened
     * to forty characters.
     */
    public String headline(String title) {
        return Texts.truncate(Texts.normalizeSpace(title), 40);
    }

    /** Fingerprints a report so that changed reports can be spotted. */
    public String fingerprint(String report) {
        return Digests.hex(Texts.normalizeSpace(report));
    }

    /**
     * Builds a table row: each cell cleaned and cut to
     * twelve characters, cells separated by bars.
     */
    public String row(List<String> cells) {
        StringBuilder sb = new StringBuilder();
        for (String cell : cells) {
            if (!Texts.isBlank(cell)) {
                sb.append(Texts.truncate(Texts.normalizeSpace(cell), 12)).append(" | ");
            }
        }
        return sb.toString();
    }

    /** Builds a headline followed by the word list. */
    public String full(String title, List<String> words) {
        return headline(title) + "\n" + line(words);
    }
}
