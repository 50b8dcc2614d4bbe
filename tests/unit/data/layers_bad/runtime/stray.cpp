// stray.cpp - in no layer.
