//! (transactional layer; being written)
