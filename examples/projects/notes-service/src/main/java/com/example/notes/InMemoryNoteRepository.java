package com.example.notes;

import org.example.textkit.LruCache;

/** Keeps the most recent notes in memory. */
public class InMemoryNoteRepository implements NoteRepository {

    private final LruCache<String, Note> cache = new LruCache<>(1000);

    @Override
    public void save(Note note) {
        cache.put(note.slug(), note);
    }

    @Override
    public Note findBySlug(String slug) {
        return cache.get(slug);
    }
}
