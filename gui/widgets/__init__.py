"""Small widgets and styles shared by the docks and the viewer."""
