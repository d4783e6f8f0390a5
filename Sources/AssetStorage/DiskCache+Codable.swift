import Foundation

extension DiskCache {
    /// Stores a typed value as JSON (kind ``AssetKind/raw`` unless told otherwise).
    @discardableResult
    public func storeValue<T: Encodable>(_ value: T, forKey key: String, info: EntryInfo = EntryInfo(kind: .raw, contentType: "application/json")) throws -> CacheMetadata {
        let data: Data
        do {
            data = try JSONEncoder().encode(value)
        } catch {
            throw StorageError(.encoding, "cannot encode \(T.self) for \(key)", underlying: error)
        }
        return try store(data, forKey: key, info: info)
    }

    /// Reads a typed value stored as JSON; `nil` when there is no entry. An entry that does not
    /// decode as `T` throws ``StorageError/Code/encoding`` (the entry is left in place).
    public func value<T: Decodable>(_ type: T.Type, forKey key: String) throws -> T? {
        guard let data = try data(forKey: key) else { return nil }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw StorageError(.encoding, "the entry for \(key) is not a \(T.self)", underlying: error)
        }
    }
}
