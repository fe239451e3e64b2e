package com.example.notes;

/** Checks note creation (run by hand; the example has no test framework). */
public class NoteServiceTest {

    /** Creating a note slugifies its title. */
    public void createSlugifies() {
        NoteService s = new NoteService(new InMemoryNoteRepository());
        if (!s.create("Hello  World", "x").slug().equals("hello-world")) {
            throw new AssertionError();
        }
    }
}
