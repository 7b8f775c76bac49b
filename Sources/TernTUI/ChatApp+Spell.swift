import Foundation

/// Spell checking: the `spell` setting's dictionaries are loaded off the actor (reading a dictionary takes a
/// moment); until they are, and when none could be, the input is not checked. What could not be loaded (no
/// library, no dictionary) is said once in the status notice.
extension ChatApp {
    /// Loads the dictionaries the `spell` setting asks for: when the input line first gets text (a
    /// dictionary is several MB of memory, which someone who only reads never needs), and when `/set
    /// spell` changes it.
    func loadSpelling() {
        spellingRequested = true
        guard let checker = reducer.spellChecker else { return }
        let wanted = state.settings.spell
        state.spell = SpellState()
        Task.detached {
            let languages = wanted ?? (checker.hasDictionary("en_US") ? ["en_US"] : [])
            let result = checker.load(languages)
            await self.spellingLoaded(result, for: wanted)
        }
    }

    func spellingLoaded(_ result: SpellLoad, for wanted: [String]?) {
        // A newer setting is being loaded: its answer counts.
        guard wanted == state.settings.spell else { return }
        state.spell = SpellState(languages: result.loaded)
        if let problem = result.problem, !spellProblemsShown.contains(problem) {
            spellProblemsShown.insert(problem)
            state.notice = problem
        }
        reducer.refreshSpelling(&state)
        markDirty(urgent: true)
    }
}
