"""What the faces show, computed without Textual: table rows and columns, summary lines and
charts. Light on purpose (nothing heavy at import), so the workbench's first paint can use it."""
