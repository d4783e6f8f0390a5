/// The LFU frequency buckets: a list of buckets in increasing order of frequency, each a list of the
/// entries used that many times (O(1) LFU after Shah, Mitra and Matani, "An O(1) algorithm for
/// implementing the LFU cache eviction scheme", 2010).
extension MemoryCache.Storage {
    /// Moves node `i` to the bucket of the next frequency (LFU), creating it if need be.
    @inlinable
    mutating func promote(_ i: Int32) {
        let b = nodes[Int(i)].bucket
        let frequency = buckets[Int(b)].frequency
        guard frequency < Int.max else { moveToFront(i); return }
        let next = buckets[Int(b)].next
        let target: Int32
        if next != -1, buckets[Int(next)].frequency == frequency + 1 {
            target = next
        } else {
            target = insertBucket(frequency: frequency + 1, after: b)
        }
        unlink(i)
        if buckets[Int(b)].head == -1 { freeBucketSlot(b) }
        pushFront(i, bucket: target)
    }

    /// The bucket of `frequency`, created if missing. O(1) for a new entry (frequency 1: the first
    /// bucket); other frequencies, which only a snapshot load asks for, are found by walking from the
    /// most frequent end (O(1) too when they arrive in increasing order, as a snapshot holds them).
    @inlinable
    mutating func bucketForNewEntry(frequency: Int) -> Int32 {
        if frequency <= 1 {
            if firstBucket != -1, buckets[Int(firstBucket)].frequency == 1 { return firstBucket }
            return insertBucket(frequency: 1, after: -1)
        }
        var b = lastBucket
        while b != -1, buckets[Int(b)].frequency > frequency {
            b = buckets[Int(b)].prev
        }
        if b != -1, buckets[Int(b)].frequency == frequency { return b }
        return insertBucket(frequency: frequency, after: b)
    }

    /// Creates a bucket of `frequency` after bucket `b` (at the front when `b` is -1).
    @inlinable
    mutating func insertBucket(frequency: Int, after b: Int32) -> Int32 {
        var bucket = Bucket(frequency: frequency)
        let next = b == -1 ? firstBucket : buckets[Int(b)].next
        bucket.prev = b
        bucket.next = next
        let i: Int32
        if freeBucket != -1 {
            i = freeBucket
            freeBucket = buckets[Int(i)].next
            buckets[Int(i)] = bucket
        } else {
            if bucketCount == bucketCapacity {
                let grown = UnsafeMutablePointer<Bucket>.allocate(capacity: bucketCapacity * 2)
                grown.moveInitialize(from: buckets, count: bucketCount)
                buckets.deallocate()
                buckets = grown
                bucketCapacity *= 2
            }
            (buckets + bucketCount).initialize(to: bucket)
            bucketCount += 1
            i = Int32(bucketCount - 1)
        }
        if b != -1 { buckets[Int(b)].next = i } else { firstBucket = i }
        if next != -1 { buckets[Int(next)].prev = i } else { lastBucket = i }
        return i
    }

    @inlinable
    mutating func freeBucketSlot(_ b: Int32) {
        let prev = buckets[Int(b)].prev
        let next = buckets[Int(b)].next
        if prev != -1 { buckets[Int(prev)].next = next } else { firstBucket = next }
        if next != -1 { buckets[Int(next)].prev = prev } else { lastBucket = prev }
        buckets[Int(b)] = Bucket(frequency: 0)
        buckets[Int(b)].next = freeBucket
        freeBucket = b
    }
}
