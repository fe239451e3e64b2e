package com.example.notes;

/** Where notes are kept. */
public interface NoteRepository {

    void save(Note note);

    Note findBySlug(String slug);
}
