package com.example.notes;

import org.example.textkit.Texts;

/** Creates, finds and summarises notes. */
public class NoteService {

    private final NoteRepository repository;

    public NoteService(NoteRepository repository) {
        this.repository = repository;
    }

    /**
     * Creates a note from a title and a body and stores it;
     * the note's slug is derived from the cleaned title.
     *
     * @param title the title as typed
     * @param body the text of the note
     * @return the stored note
     */
    public Note create(String title, String body) {
        String clean = cleanTitle(title);
        Note note = new Note(Texts.slugify(clean), clean, body);
        repository.save(note);
        return note;
    }

    /**
     * Cleans a title: whitespace runs are collapsed,
     * and a blank title is rejected.
     */
    String cleanTitle(String title) {
        if (Texts.isBlank(title)) {
            throw new IllegalArgumentException("blank title");
        }
        return Texts.normalizeSpace(title);
    }

    /**
     * 生成笔记摘要，最多八十个字符。
     */
    public String summary(Note note) {
        return Texts.truncate(Texts.normalizeSpace(note.body()), 80);
    }

    /** Looks a note up by its slug. */
    public Note find(String slug) {
        return repository.findBySlug(slug);
    }
}
