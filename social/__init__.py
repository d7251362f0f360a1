"""Players and the players they care about: following (one-way and private) and blocking."""
