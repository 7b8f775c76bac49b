import Testing
@testable import TernTUI

