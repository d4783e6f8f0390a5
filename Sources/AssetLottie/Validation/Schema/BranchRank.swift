/// How close a failed branch of a `oneOf`/`anyOf` came to admitting the instance; the smallest rank
/// is taken as the branch that was meant, and its failures are the ones reported.
///
/// In order: a branch whose failures reject the instance itself as another kind (`shallow`: a wrong
/// type, constant or enumeration value) is the least likely; then fewer members with a value the
/// branch excludes by constant, enumeration or `not` (a wrong `ty`: the discriminator of a union; a
/// member of the wrong type is an ordinary error, not a discriminator); then more members recognised
/// (`evidence`); then fewer failures; then schema order.
struct BranchRank: Comparable {
    var shallow: Bool
    var memberMismatches: Int
    var evidence: Int
    var failures: Int
    var index: Int

    init(failures: ArraySlice<SchemaFailure>, dropped: Int, depth: Int, evidence: Int, index: Int) {
        var shallow = false
        var memberMismatches = 0
        for failure in failures where failure.path.count <= depth + 1 && failure.isMismatch {
            if failure.path.count == depth {
                shallow = true
            } else if !failure.isTypeCheck {
                memberMismatches += 1
            }
        }
        self.shallow = shallow
        self.memberMismatches = memberMismatches
        self.evidence = evidence
        self.failures = failures.count + dropped
        self.index = index
    }

    static func < (lhs: BranchRank, rhs: BranchRank) -> Bool {
        if lhs.shallow != rhs.shallow { return !lhs.shallow }
        if lhs.memberMismatches != rhs.memberMismatches { return lhs.memberMismatches < rhs.memberMismatches }
        if lhs.evidence != rhs.evidence { return lhs.evidence > rhs.evidence }
        if lhs.failures != rhs.failures { return lhs.failures < rhs.failures }
        return lhs.index < rhs.index
    }
}
