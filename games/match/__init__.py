"""The domain around a match, below the services and above the pure rules: clocks and time
controls, conduct (draws, takebacks, aborts), ratings, a match's settings and labels, the rule
set a stored match names (``rulesets``), the rules guide, the text policy for what people type,
and the one error type a refused request raises.

Plain Python and Django settings only: nothing here reads or writes the database, and nothing
imports the services, the selectors or the real-time machinery.
"""
