// replaced by the generator sources
