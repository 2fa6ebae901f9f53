theorem a : True := by
  /- open
