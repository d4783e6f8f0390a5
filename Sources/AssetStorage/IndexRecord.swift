/// One entry as the disk cache's index keeps it: fixed width (120 bytes), no strings. The key and the
/// rest of the metadata stay on disk, in the entry file, and are read when asked for.
struct IndexRecord: Sendable {
    var digest: KeyDigest
    /// The first 16 bytes of the content checksum: tells one commit of a key from another.
    var identity: ContentIdentity
    /// The data's length (the entry file also holds the metadata JSON and the footer).
    var size: Int64
    /// Seconds since 1970.
    var created: Double
    var lastAccess: Double
    /// Seconds since 1970; NaN for none.
    var expirationValue: Double
    /// The entry file's inode: with the key's digest, what identifies the file version a record
    /// describes (opening a cache matches directory listings against the snapshot by it).
    var inode: UInt64
    /// The entry file's modification time when its checksum last matched in this process (with
    /// ``inode`` and the file's length); meaningful only when ``isVerified`` is set.
    var verifiedModified: Int64 = 0
    /// Touches not yet written to the entry's `.meta.json`.
    var pendingAccesses: UInt32 = 0
    /// The metadata JSON's length in the entry file (it sits between the data and the footer).
    var metadataLength: UInt32
    var kind: AssetKind
    private var flags: UInt8 = 0

    init(digest: KeyDigest, footer: EntryFooter, inode: UInt64, lastAccess: Double? = nil) {
        self.init(
            digest: digest, identity: footer.checksum.identity, size: footer.dataSize, created: footer.created,
            lastAccess: lastAccess ?? footer.created, expiration: footer.expiration, inode: inode,
            metadataLength: footer.metadataLength, kind: footer.kind)
    }

    init(digest: KeyDigest, identity: ContentIdentity, size: Int64, created: Double, lastAccess: Double,
         expiration: Double?, inode: UInt64, metadataLength: Int, kind: AssetKind) {
        self.digest = digest
        self.identity = identity
        self.size = size
        self.created = created
        self.lastAccess = lastAccess
        expirationValue = expiration ?? .nan
        self.inode = inode
        self.metadataLength = UInt32(metadataLength)
        self.kind = kind
    }

    var expiration: Double? {
        get { expirationValue.isNaN ? nil : expirationValue }
        set { expirationValue = newValue ?? .nan }
    }

    /// The whole entry file's length: data, metadata JSON and footer.
    var fileSize: Int64 { size + Int64(metadataLength) + Int64(EntryFooter.size) }

    private static let verifiedFlag: UInt8 = 1, queuedFlag: UInt8 = 2, seenFlag: UInt8 = 4

    /// Whether the checksum matched the file with ``inode`` and ``verifiedModified`` in this process.
    var isVerified: Bool {
        get { flags & Self.verifiedFlag != 0 }
        set { flags = newValue ? flags | Self.verifiedFlag : flags & ~Self.verifiedFlag }
    }

    /// Whether the record is on the list of entries whose touches wait to be flushed.
    var queuedForFlush: Bool {
        get { flags & Self.queuedFlag != 0 }
        set { flags = newValue ? flags | Self.queuedFlag : flags & ~Self.queuedFlag }
    }

    /// Set while opening: the directory listing has this file.
    var seen: Bool {
        get { flags & Self.seenFlag != 0 }
        set { flags = newValue ? flags | Self.seenFlag : flags & ~Self.seenFlag }
    }

    /// Records `stamp` as the file whose checksum just matched.
    mutating func markVerified(_ stamp: FileStamp) {
        inode = stamp.inode
        verifiedModified = stamp.modified
        isVerified = true
    }

    /// Whether `stamp` is the file this record was verified against: then it is served unhashed.
    func isVerified(_ stamp: FileStamp) -> Bool {
        isVerified && inode == stamp.inode && verifiedModified == stamp.modified && fileSize == stamp.size
    }

    /// Keeps what this process knows of the same commit that the disk does not say: the verified
    /// stamp, unflushed touches, the last access.
    mutating func inherit(from old: IndexRecord?) {
        guard let old, old.identity == identity else { return }
        if old.isVerified && old.inode == inode {
            verifiedModified = old.verifiedModified
            isVerified = true
        }
        pendingAccesses = old.pendingAccesses
        queuedForFlush = old.queuedForFlush
        lastAccess = max(lastAccess, old.lastAccess)
    }

    func isExpired(now: Double, maxAge: Double?) -> Bool {
        if !expirationValue.isNaN, expirationValue <= now { return true }
        if let maxAge, created + maxAge <= now { return true }
        return false
    }
}
