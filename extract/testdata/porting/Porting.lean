import Porting.Basic
import Porting.Tactics
import Porting.Uses
