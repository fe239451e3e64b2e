package org.example.textkit;

/**
 * Small static helpers for checking, cleaning and shortening text.
 */
public final class Texts {

    private Texts() {
    }

    /**
     * Tells whether a text is {@code null}, empty or made of whitespace only.
     *
     * @param text the text to check, may be {@code null}
     * @return {@code true} if the text has no visible character
     */
    public static boolean isBlank(CharSequence text) {
        if (text == null) {
            return true;
        }
        for (int i = 0; i < text.length(); i++) {
            if (!Character.isWhitespace(text.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    /**
     * Collapses every run of whitespace into one space and trims both ends.
     *
     * @param text the text to clean
     * @return the cleaned text, or {@code null} for {@code null}
     */
    public static String normalizeSpace(String text) {
        return text == null ? null : text.trim().replaceAll("\\s+", " ");
    }

    /**
     * Cuts a text to at most {@code maxLength} characters, ending it with an
     * ellipsis when it was cut.
     *
     * @param text the text to shorten
     * @param maxLength the longest result, at least 1
     * @return the shortened text
     * @throws IllegalArgumentException if {@code maxLength} is less than 1
     */
    public static String truncate(String text, int maxLength) {
        if (maxLength < 1) {
            throw new IllegalArgumentException("maxLength < 1");
        }
        return text.length() <= maxLength ? text : text.substring(0, maxLength - 1) + "\u2026";
    }

    /**
     * Turns a text into a lower-case, hyphen-separated slug for use in URLs.
     *
     * @param text the text, for example a title
     * @return the slug
     */
    public static String slugify(String text) {
        return normalizeSpace(text).toLowerCase().replaceAll("[^a-z0-9]+", "-");
    }

    /**
     * Joins the elements of an iterable, putting a separator between them.
     *
     * @param items the elements
     * @param separator what goes between two elements
     * @return the joined text
     */
    public static String join(Iterable<?> items, String separator) {
        StringBuilder sb = new StringBuilder();
        for (Object item : items) {
            if (sb.length() > 0) {
                sb.append(separator);
            }
            sb.append(item);
        }
        return sb.toString();
    }

    /**
     * Joins the elements of an array, putting a separator between them.
     *
     * @param items the elements
     * @param separator what goes between two elements
     * @return the joined text
     */
    public static String join(Object[] items, String separator) {
        return join(java.util.Arrays.asList(items), separator);
    }
}
