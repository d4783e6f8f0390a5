import Testing

/// One row of `Fixtures/image-reference-hashes.tsv` (written by `scripts/reference-image-hashes`).
struct ReferenceImage: Sendable, CustomTestStringConvertible {
    var path: String
    var kind: String
    var scale: Int
    var width: Int
    var height: Int
    var sha256: String

    var testDescription: String { scale == 1 ? path : "\(path) 1/\(scale)" }

    static let all: [ReferenceImage] = Fixtures.table("image-reference-hashes.tsv").compactMap { row in
        guard let path = row["path"], let kind = row["kind"], let scale = row["scale"].flatMap(Int.init),
            let width = row["width"].flatMap(Int.init), let height = row["height"].flatMap(Int.init),
            let sha = row["sha256"]
        else { return nil }
        return ReferenceImage(path: path, kind: kind, scale: scale, width: width, height: height, sha256: sha)
    }

    static func of(kinds: Set<String>) -> [ReferenceImage] { all.filter { kinds.contains($0.kind) } }
}
