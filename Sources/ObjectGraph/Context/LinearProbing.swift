/// Backward-shift deletion for an open-addressing table with linear probing, shared by the
/// identity map's page directory and the row cache: after the slot at `removed` is emptied,
/// later members of its probe run move into the gap, so lookups never stop early at it and
/// no tombstones are needed.
///
/// - Parameters:
///   - mask: the table's size minus one (sizes are powers of two).
///   - isOccupied: whether a slot holds an entry.
///   - home: the slot an entry's key hashes to.
///   - move: moves the entry at the first index into the slot at the second.
/// - Returns: the slot left empty at the end; the caller clears it.
@inline(__always)
func shiftBackAfterRemoving(at removed: Int, mask: Int, isOccupied: (Int) -> Bool, home: (Int) -> Int,
                            move: (_ from: Int, _ to: Int) -> Void) -> Int {
    var gap = removed
    var index = (gap &+ 1) & mask
    while isOccupied(index) {
        // Move the entry into the gap unless its home lies cyclically in (gap, index].
        if (index &- home(index)) & mask >= (index &- gap) & mask {
            move(index, gap)
            gap = index
        }
        index = (index &+ 1) & mask
    }
    return gap
}
