import Bump.Arith
import Bump.Small
