package org.example.textkit;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A size-bounded map that evicts the least recently used entry.
 *
 * @param <K> key type
 * @param <V> value type
 */
public class LruCache<K, V> {

    private final Map<K, V> map;

    /**
     * Creates a cache holding at most {@code capacity} entries.
     *
     * @param capacity the largest number of entries kept
     */
    public LruCache(final int capacity) {
        this.map = new LinkedHashMap<K, V>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
                return size() > capacity;
            }
        };
    }

    /**
     * Stores a value under a key, evicting the least recently used entry when full.
     *
     * @param key the key
     * @param value the value
     */
    public void put(K key, V value) {
        map.put(key, value);
    }

    /**
     * Returns the value stored under a key and marks it as recently used.
     *
     * @param key the key
     * @return the value, or {@code null} if absent
     */
    public V get(K key) {
        return map.get(key);
    }
}
