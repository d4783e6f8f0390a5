import Testing

/// One row of a corpus `FILES.tsv`, with its path made relative to `Fixtures/`.
struct CorpusFile: Sendable, CustomTestStringConvertible {
    var path: String
    var expect: String
    var testDescription: String { path }

    static let all: [CorpusFile] = ["png", "jpeg"].flatMap { folder in
        Fixtures.table("\(folder)/FILES.tsv").compactMap { row -> CorpusFile? in
            guard let path = row["path"], let expect = row["expect"] else { return nil }
            return CorpusFile(path: "\(folder)/\(path)", expect: expect)
        }
    }

    static func expecting(_ predicate: @Sendable (String) -> Bool) -> [CorpusFile] {
        all.filter { predicate($0.expect) }
    }
}
