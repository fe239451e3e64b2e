package com.example.notes;

/** A stored note. */
public record Note(String slug, String title, String body) {
}
