/// The disk cache's in-memory index: fixed-width ``IndexRecord``s in segments of 16,384 (growing
/// adds a segment, never copies the others), found through an open-addressing table of 32-bit
/// positions keyed by the key's SHA-256 (already uniformly random, so its first word is the hash).
///
/// About 130 bytes per entry at a million entries: 112 for the record and 8 to 16 for the table.
/// Not thread-safe: the disk cache keeps it in its state mutex.
struct CacheIndex: Sendable {
    static let segmentShift = 14
    static let segmentSize = 1 << segmentShift

    fileprivate var segments: [[IndexRecord]] = []
    /// 0 for an empty slot, else the record's position + 1.
    private var slots: [UInt32] = []
    private(set) var count = 0

    init() {}

    var isEmpty: Bool { count == 0 }

    /// Makes room for `capacity` entries at once (the table is sized so that it stays under 70% full).
    mutating func reserveCapacity(_ capacity: Int) {
        let needed = Self.tableSize(for: capacity)
        if needed > slots.count { rehash(to: needed) }
    }

    subscript(position: Int) -> IndexRecord {
        get { segments[position >> Self.segmentShift][position & (Self.segmentSize - 1)] }
        set { segments[position >> Self.segmentShift][position & (Self.segmentSize - 1)] = newValue }
    }

    /// The table slot that holds the position of `digest`'s record (linear probing from its hash).
    private func slot(of digest: KeyDigest) -> Int? {
        guard !slots.isEmpty else { return nil }
        let mask = slots.count - 1
        var i = Int(truncatingIfNeeded: digest.w1) & mask
        while true {
            let slot = slots[i]
            if slot == 0 { return nil }
            if self[Int(slot) - 1].digest == digest { return i }
            i = (i + 1) & mask
        }
    }

    /// The position of the record for `digest`.
    func position(of digest: KeyDigest) -> Int? {
        slot(of: digest).map { Int(slots[$0]) - 1 }
    }

    func record(for digest: KeyDigest) -> IndexRecord? {
        position(of: digest).map { self[$0] }
    }

    /// Changes the record for `digest` in place; returns false when there is none.
    @discardableResult
    mutating func update(_ digest: KeyDigest, _ change: (inout IndexRecord) -> Void) -> Bool {
        guard let p = position(of: digest) else { return false }
        change(&segments[p >> Self.segmentShift][p & (Self.segmentSize - 1)])
        return true
    }

    /// Adds `record`, or replaces the one with its digest; returns the one replaced.
    @discardableResult
    mutating func insert(_ record: IndexRecord) -> IndexRecord? {
        if let p = position(of: record.digest) {
            let old = self[p]
            self[p] = record
            return old
        }
        if Self.tableSize(for: count + 1) > slots.count { rehash(to: Self.tableSize(for: count + 1)) }
        let p = count
        if p >> Self.segmentShift == segments.count {
            var segment: [IndexRecord] = []
            segment.reserveCapacity(Self.segmentSize)
            segments.append(segment)
        }
        segments[p >> Self.segmentShift].append(record)
        count += 1
        place(position: p, digest: record.digest)
        return nil
    }

    /// Removes the record for `digest` and returns it. The last record moves into its place.
    @discardableResult
    mutating func remove(_ digest: KeyDigest) -> IndexRecord? {
        guard let i = slot(of: digest) else { return nil }
        let p = Int(slots[i]) - 1
        let removed = self[p]
        deleteSlot(i)
        let last = count - 1
        if p != last {
            let moved = self[last]
            self[p] = moved
            // Point the moved record's slot (the one slot still naming `last`) at its new position.
            if let j = slot(of: moved.digest) { slots[j] = UInt32(p + 1) }
        }
        segments[last >> Self.segmentShift].removeLast()
        if segments[last >> Self.segmentShift].isEmpty { segments.removeLast() }
        count -= 1
        return removed
    }

    mutating func removeAll() {
        segments = []
        slots = []
        count = 0
    }

    /// Calls `body` with every record (in no particular order).
    func forEach(_ body: (IndexRecord) throws -> Void) rethrows {
        for segment in segments {
            for record in segment { try body(record) }
        }
    }

    /// The records that pass `isIncluded`.
    func filter(_ isIncluded: (IndexRecord) -> Bool) -> [IndexRecord] {
        var out: [IndexRecord] = []
        forEach { if isIncluded($0) { out.append($0) } }
        return out
    }

    /// Bytes held by the records and the table (not counting what the allocator rounds up).
    var memoryFootprint: Int {
        segments.reduce(0) { $0 + $1.capacity * MemoryLayout<IndexRecord>.stride } + slots.capacity * 4
    }

    // MARK: the table

    private static func tableSize(for count: Int) -> Int {
        var size = 16
        while size * 7 < count * 10 { size <<= 1 }
        return size
    }

    private mutating func place(position p: Int, digest: KeyDigest) {
        let mask = slots.count - 1
        var i = Int(truncatingIfNeeded: digest.w1) & mask
        while slots[i] != 0 { i = (i + 1) & mask }
        slots[i] = UInt32(p + 1)
    }

    private mutating func rehash(to size: Int) {
        slots = [UInt32](repeating: 0, count: size)
        for p in 0..<count { place(position: p, digest: self[p].digest) }
    }

    /// Empties slot `i` and shifts back the entries of its probe run that may now sit closer to home.
    private mutating func deleteSlot(_ start: Int) {
        let mask = slots.count - 1
        var hole = start
        var j = start
        slots[hole] = 0
        while true {
            j = (j + 1) & mask
            let slot = slots[j]
            if slot == 0 { return }
            let home = Int(truncatingIfNeeded: self[Int(slot) - 1].digest.w1) & mask
            // The entry at j may move to the hole when its home is not cyclically in (hole, j].
            let between = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j)
            if !between {
                slots[hole] = slot
                slots[j] = 0
                hole = j
            }
        }
    }
}

extension CacheIndex {
    /// Changes every record in place.
    mutating func forEachMutable(_ body: (inout IndexRecord) -> Void) {
        for s in segments.indices {
            for r in segments[s].indices { body(&segments[s][r]) }
        }
    }
}
