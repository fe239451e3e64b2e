package com.example.notes;

import org.example.textkit.Texts;

/** Turns web requests into note operations (framework-free, Spring-like). */
public class NoteController {

    private final NoteService service;

    public NoteController(NoteService service) {
        this.service = service;
    }

    /**
     * Handles a create request: stores the note
     * and answers with the link to it.
     */
    public String handleCreate(String title, String body) {
        if (Texts.isBlank(body)) {
            return "empty body";
        }
        Note note = service.create(title, body);
        return link(note);
    }

    /** Builds the link to a note. */
    String link(Note note) {
        return "/notes/" + note.slug();
    }

    /** Answers a note's summary, or a not-found message. */
    public String handleSummary(String slug) {
        Note note = service.find(Texts.normalizeSpace(slug));
        if (note == null) {
            return "not found";
        }
        return service.summary(note);
    }
}
