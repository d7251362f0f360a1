"""General Game Playing for Boardhall: GDL rule sheets and their reasoner (``games.ggp.gdl``)."""
